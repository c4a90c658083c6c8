package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/tools/secrets"
	"github.com/aci-dev/aci/tools/textfile"
	"github.com/aci-dev/aci/ui"
)

const exportHelp = `Usage: aci export ID [--format md|html] [-o FILE]

Writes session ID of this folder (aci --sessions lists them) as a readable
document: each question, the model's words, its actions with their diffs
and outputs, your decisions, each answer and its cost. Secrets aci knows
(the API key, credential variables, .env values) are removed.

  --format md|html   Markdown (default) or a self-contained HTML page
  -o FILE            write to FILE (atomically) instead of stdout
`

// runExport is aci export: no model is asked, so no key is needed; a key
// that is set is still one of the secrets removed.
func runExport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("aci export", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", "md", "")
	outPath := fs.String("o", "", "")
	help := fs.Bool("help", false, "")
	fs.BoolVar(help, "h", false, "")
	// The id may come before or after the flags.
	var id string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			fmt.Fprintf(stderr, "aci export: %v (see aci export --help)\n", err)
			return ui.ExitUsage
		}
		if fs.NArg() == 0 {
			break
		}
		if id != "" {
			fmt.Fprintf(stderr, "aci export: one session at a time, got %q and %q\n", id, fs.Arg(0))
			return ui.ExitUsage
		}
		id, args = fs.Arg(0), fs.Args()[1:]
	}
	if *help {
		fmt.Fprint(stdout, exportHelp)
		return ui.ExitOK
	}
	if id == "" {
		fmt.Fprint(stderr, "aci export: which session? aci export ID (aci --sessions lists them)\n")
		return ui.ExitUsage
	}
	if _, ok := session.ExportFormats[*format]; !ok {
		fmt.Fprintf(stderr, "aci export: unknown format %q: md or html\n", *format)
		return ui.ExitUsage
	}
	workdir, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "aci export: cannot read the working directory:", err)
		return ui.ExitFailed
	}
	dir, err := session.SessionsDir()
	if err != nil {
		fmt.Fprintln(stderr, "aci export:", err)
		return ui.ExitFailed
	}
	st, err := session.FindSession(dir, workdir, id)
	if errors.Is(err, session.ErrNoSession) {
		fmt.Fprintln(stderr, "aci export:", err)
		return ui.ExitUsage
	}
	if err != nil {
		fmt.Fprintln(stderr, "aci export:", err)
		return ui.ExitFailed
	}
	doc, err := session.Export(st, *format, exportSecrets().Redact)
	if err != nil {
		fmt.Fprintln(stderr, "aci export:", err)
		return ui.ExitUsage
	}
	if *outPath == "" {
		if _, err := stdout.Write(doc); err != nil {
			fmt.Fprintln(stderr, "aci export:", err)
			return ui.ExitFailed
		}
		return ui.ExitOK
	}
	if err := textfile.WriteAtomic(*outPath, doc, 0o644); err != nil {
		fmt.Fprintln(stderr, "aci export:", err)
		return ui.ExitFailed
	}
	fmt.Fprintf(stderr, "aci export: wrote %s (%d bytes)\n", *outPath, len(doc))
	return ui.ExitOK
}

// exportSecrets is the secret set the other commands build, without
// reading the settings (no endpoint is probed for a key): the machine's
// credential variables, the person's and the folder's .env files (a key
// kept there is a credential variable), the workspace's .env values.
func exportSecrets() *secrets.Redactor {
	c := config{Secrets: secrets.NewRedactor(), URLSecrets: secrets.NewRedactor()}
	c.DotEnv, _, _ = loadEnvFiles(io.Discard, absPath(".env"), userEnvPath())
	addSecrets(c)
	return c.Secrets
}
