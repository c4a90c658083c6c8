package ui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/settings"
)

// openDiffTool opens each chosen file's change in the person's diff_tool:
// the file as it was before the session (a temporary copy) and as it is
// now. It runs uncontained, on the terminal, because the person named it
// in their own settings; a workspace's settings are never read for it. The
// command line is split into words and the paths put in as whole words,
// with no shell, so a file name cannot add to the command.
func (r *REPL) openDiffTool(files []session.ChangedFile, arg string) {
	tool := strings.TrimSpace(r.cfg.DiffTool)
	if tool == "" {
		r.out.note(`no diff_tool in your settings (` + settingsPathHint() + `): e.g. "diff_tool": "meld", or "diff_tool": "vimdiff {old} {new}"`)
		return
	}
	chosen := files
	if arg != "" {
		f, ok := r.pickChange(files, arg)
		if !ok {
			return
		}
		chosen = []session.ChangedFile{f}
	}
	if len(chosen) == 0 {
		r.out.note("this session has changed no file")
		return
	}
	for _, f := range chosen {
		if err := r.runDiffTool(tool, f); err != nil {
			r.out.fail(fmt.Sprintf("diff_tool on %s: %v", f.Path, err))
			return
		}
	}
}

func (r *REPL) runDiffTool(tool string, f session.ChangedFile) error {
	tmp, err := os.MkdirTemp("", "aci-diff-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	base := filepath.Base(f.Path)
	old := filepath.Join(tmp, "before-"+base)
	if err := os.WriteFile(old, f.Before, 0o600); err != nil {
		return err
	}
	now := f.Abs
	if f.Status == "deleted" {
		now = filepath.Join(tmp, "now-"+base+" (deleted)")
		if err := os.WriteFile(now, nil, 0o600); err != nil {
			return err
		}
	}
	argv := diffToolArgs(tool, old, now)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = r.cfg.Workdir
	cmd.Env = sandbox.Environ(os.Environ()) // the person's program, without the keys aci holds
	cmd.Stdin, cmd.Stdout, cmd.Stderr = r.cfg.Stdin, r.cfg.Stdout, r.cfg.Stderr
	r.out.note("opening " + f.Path + " in " + argv[0])
	return cmd.Run()
}

// diffToolArgs is the command line: tool's words with {old} and {new}
// replaced, or tool OLD NEW when it names neither.
func diffToolArgs(tool, old, now string) []string {
	words := strings.Fields(tool)
	if !strings.Contains(tool, "{old}") && !strings.Contains(tool, "{new}") {
		return append(words, old, now)
	}
	for i, w := range words {
		w = strings.ReplaceAll(w, "{old}", old)
		words[i] = strings.ReplaceAll(w, "{new}", now)
	}
	return words
}

func settingsPathHint() string {
	if home, err := os.UserHomeDir(); err == nil {
		if rel, err := filepath.Rel(home, settings.UserPath()); err == nil && !strings.HasPrefix(rel, "..") {
			return "~/" + rel
		}
	}
	return settings.UserPath()
}
