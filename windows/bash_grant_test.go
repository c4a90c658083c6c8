package windows

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/tools/sandbox"
)

// A contained command sees the machine's /tmp paths it names; one it could
// not name (built at run time) is missing from the session's own /tmp, and
// the result says so plainly rather than leaving the model to guess.
func TestBashMachineTmpNamedOrSaid(t *testing.T) {
	m, dir := newAppsManager(t, ApproverFunc(func(context.Context, ApprovalRequest) Decision { return Decision{} }))
	if sandbox.For(dir).Kind() != sandbox.Bwrap {
		t.Skip("no private /tmp without bubblewrap")
	}
	real, err := os.MkdirTemp("/tmp", "aci-hint-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(real) })
	f := filepath.Join(real, "f")
	os.WriteFile(f, []byte("MACHINE-FILE\n"), 0o644)
	do(t, m, "launcher", "open", `{"app":"bash"}`)
	do(t, m, "bash_1", "run", `{"command":"cat `+f+`"}`)
	if got := content(m, "bash_1"); !strings.Contains(got, "MACHINE-FILE") || strings.Contains(got, "private_tmp") {
		t.Errorf("named machine path:\n%s", got)
	}
	// A path the guard cannot read before the command runs.
	os.WriteFile(filepath.Join(dir, "where.txt"), []byte(f+"\n"), 0o644)
	// (The mount point bwrap made for the named path in the session's
	// /tmp is gone: the command finds nothing there, not an empty file.)
	do(t, m, "bash_1", "run", `{"command":"cat $(cat where.txt)"}`)
	if got := content(m, "bash_1"); !strings.Contains(got, `type="private_tmp"`) || !strings.Contains(got, real+" exists on the machine") {
		t.Errorf("unnamed machine path, no plain word:\n%s", got)
	}
}

// The question names what allowing grants, and a grant that no folder
// would express runs the command outside the sandbox, saying so.
func TestBashGrantQuestion(t *testing.T) {
	var asked []ApprovalRequest
	m, dir := newAppsManager(t, ApproverFunc(func(_ context.Context, req ApprovalRequest) Decision {
		asked = append(asked, req)
		return Decision{}
	}))
	if !sandbox.For(dir).Contained() {
		t.Skip("this machine cannot contain commands")
	}
	out := t.TempDir()
	os.MkdirAll(filepath.Join(out, "build"), 0o755)
	do(t, m, "launcher", "open", `{"app":"bash"}`)
	do(t, m, "bash_1", "run", `{"command":"rm -rf `+filepath.Join(out, "build")+`"}`)
	do(t, m, "bash_1", "run", `{"command":"apt-get install -y jq"}`)
	if len(asked) != 2 {
		t.Fatalf("asked %d times", len(asked))
	}
	if want := "deletes outside the workspace — allowing makes " + out + " writable for this command"; !strings.HasSuffix(asked[0].Reason, want) {
		t.Errorf("reason %q, want it to end %q", asked[0].Reason, want)
	}
	if want := "— allowing runs it outside the sandbox, since no narrower access would do"; !strings.Contains(asked[1].Reason, want) {
		t.Errorf("reason %q lacks %q", asked[1].Reason, want)
	}
}

// A delete that no folder grant expresses (the workspace itself) runs,
// once allowed, outside the sandbox, as its question said: one question,
// and the folder is gone.
func TestBashGrantOutside(t *testing.T) {
	var asked []ApprovalRequest
	m, dir := newAppsManager(t, ApproverFunc(func(_ context.Context, req ApprovalRequest) Decision {
		asked = append(asked, req)
		return Decision{Allow: true}
	}))
	if !sandbox.For(dir).Contained() {
		t.Skip("this machine cannot contain commands")
	}
	os.WriteFile(filepath.Join(dir, "f"), nil, 0o644)
	do(t, m, "launcher", "open", `{"app":"bash"}`)
	r := do(t, m, "bash_1", "run", `{"command":"cd / && rm -rf `+dir+`"}`)
	if len(asked) != 1 || !strings.Contains(asked[0].Reason, "allowing runs it outside the sandbox") {
		t.Fatalf("asked %+v", asked)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("the allowed delete did not happen: %+v\n%s", r, content(m, "bash_1"))
	}
}
