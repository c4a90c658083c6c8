package windows

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/aci-dev/aci/guard"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/shell"
)

// The workspace's secret files read as empty to contained commands
// (tools/sandbox/secrets.go). A command that needs one says so with the
// run or start parameter read (["path", ...]): the person is asked, and
// the question names each file; once allowed, that command alone reads
// them. "Always" on such a question covers those files for the rest of
// the session: a later command that asks to read them is not asked again.
// A command the guard asks about because it reads a secret file it names
// (cat .env) reads it too, once allowed: the question says so.

// readParam is the parameter of run and start that asks to read secret
// files.
var readParam = Param{Name: "read", Type: Array,
	Desc: `secret files of the workspace (.env, keys) this command must read; they read as empty otherwise (asks the person)`}

// secretAlwaysKind keys the secret files the person allowed "always" in
// the session's approver.
const secretAlwaysKind = "read-secret"

// readGrant turns the read parameter, and the secret files a command the
// guard asks about names, into a grant; v becomes the question to ask
// (nothing more is asked for files allowed "always" before). files are
// what the question covers, for askReads.
func (w *bashWindow) readGrant(command string, args Args, v *guard.Verdict) (opt shell.RunOption, files []string, fail *Result) {
	sb := w.shell.Sandbox()
	if sb.Kind() != sandbox.Bwrap || args.Bool("uncontained") {
		return nil, nil, nil
	}
	asked, err := w.readArgs(args)
	if err != nil {
		r := Fail("%v", err)
		return nil, nil, &r
	}
	named := v.Dangerous && secretReason(v.Reason)
	if len(asked) == 0 && !named {
		return nil, nil, nil // the common case: no look at the workspace
	}
	kept := sb.KeptBack()
	var reads, fresh []string
	for _, k := range kept {
		if !slices.Contains(asked, k) && !slices.Contains(asked, realPath(k)) && !(named && namesFile(command, w.shell.Dir(), k)) {
			continue
		}
		reads = append(reads, k)
		if !w.env.secretRemembered(k) {
			fresh = append(fresh, k)
		}
	}
	for _, a := range asked {
		if !slices.ContainsFunc(reads, func(r string) bool { return r == a || realPath(r) == a }) {
			if _, err := os.Stat(a); err != nil {
				r := Fail("read: %s: %v", w.rel(a), err)
				return nil, nil, &r
			}
			r := Fail("read: %s is not a secret file aci keeps back from commands (the workspace's .env files, keys, .npmrc/.pypirc with tokens): commands read it as it is", w.rel(a))
			return nil, nil, &r
		}
	}
	if len(reads) == 0 {
		return nil, nil, nil
	}
	if len(fresh) > 0 {
		says := "reads " + w.relList(fresh) + ", secret " + plural(len(fresh), "file") + " aci keeps back from commands — allowing makes " +
			itThem(len(fresh)) + " readable for this command (always: for the rest of the session)"
		switch {
		case !v.Dangerous:
			*v = guard.Verdict{Dangerous: true, Reason: says, Machine: v.Machine}
		case named:
			v.Reason += " — allowing makes " + w.relList(fresh) + " readable for this command"
		default:
			v.Reason += "; and " + says
		}
	}
	return shell.Granted(sandbox.Grant{Read: reads}), fresh, nil
}

// readArgs resolves the read parameter to absolute paths.
func (w *bashWindow) readArgs(args Args) ([]string, error) {
	raw, ok := args.Value("read").(json.RawMessage)
	if !ok {
		return nil, nil
	}
	var names []string
	if err := json.Unmarshal(raw, &names); err != nil {
		return nil, fmt.Errorf(`read must be an array of paths, e.g. [".env"]: %v`, err)
	}
	var out []string
	for _, n := range names {
		if strings.TrimSpace(n) == "" {
			return nil, fmt.Errorf("read: an empty path")
		}
		if !filepath.IsAbs(n) {
			n = filepath.Join(w.shell.Dir(), n)
		}
		out = append(out, realPath(filepath.Clean(n))) // the sandbox names files by their real paths
	}
	return out, nil
}

// secretReason reports a guard reason about reading a secret file.
func secretReason(reason string) bool {
	for _, s := range []string{"secret", "private key", "credentials"} {
		if strings.Contains(reason, s) {
			return true
		}
	}
	return false
}

// namesFile reports whether command names the file abs by its absolute
// path, or its path from dir, as a whole word.
func namesFile(command, dir, abs string) bool {
	names := []string{abs}
	if r, err := filepath.Rel(dir, abs); err == nil && !strings.HasPrefix(r, "..") {
		names = append(names, r, "./"+r)
	}
	for _, n := range names {
		re := regexp.MustCompile(`(^|[\s'"=<>|;&(])` + regexp.QuoteMeta(n) + `($|[\s'"<>|;&)])`)
		if re.MatchString(command) {
			return true
		}
	}
	return false
}

// rel names path from the window's working directory.
func (w *bashWindow) rel(path string) string {
	if r, err := filepath.Rel(w.shell.Dir(), path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}

func (w *bashWindow) relList(paths []string) string {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = w.rel(p)
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// keptText says, for a command's result, which secret files it tried to
// read and how to ask for them.
func (w *bashWindow) keptText(kept []string) string {
	if len(kept) == 0 {
		return ""
	}
	quoted := make([]string, len(kept))
	for i, k := range kept {
		b, _ := json.Marshal(w.rel(k))
		quoted[i] = string(b)
	}
	return "it tried to read " + w.relList(kept) + ", which aci keeps back from commands (secret " + plural(len(kept), "file") +
		": empty to it); if it needs " + itThem(len(kept)) + ", run it again with read: [" + strings.Join(quoted, ", ") + "] (the person is asked)"
}

// askReads puts req to the approver and, when the person allowed files
// "always", remembers them for the session.
func (e *Env) askReads(ctx context.Context, req ApprovalRequest, files []string) *Result {
	d := e.Approver.Approve(ctx, req)
	if !d.Allow {
		return &Result{Status: protocol.StatusDenied, Text: DenialText(req, d)}
	}
	if d.Always {
		if s, ok := e.Approver.(*sessionApprover); ok {
			s.mu.Lock()
			for _, f := range files {
				s.always[secretAlwaysKind+"\x00"+f] = true
			}
			s.mu.Unlock()
		}
	}
	return nil
}

// secretRemembered reports a secret file the person allowed "always".
func (e *Env) secretRemembered(path string) bool {
	return e.remembered(ApprovalRequest{Kind: secretAlwaysKind, Subject: path})
}

func itThem(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// realPath is path with its links resolved, or path.
func realPath(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return path
}
