package e2e

import (
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// TestPipeUnknownCommandIsUsageError: aci -p "/nosuch" is refused as the
// REPL refuses it (exit 2, naming it), a REPL command is named as one, and
// neither reaches the model; "/etc/hosts is wrong" is still a question.
func TestPipeUnknownCommandIsUsageError(t *testing.T) {
	work := t.TempDir()
	srv := fakeai.New(t, fakeai.Reply{Content: "it is fine"})
	env := []string{"XDG_CONFIG_HOME=" + t.TempDir()}
	for q, want := range map[string]string{
		"/nosuch do it": "unknown command /nosuch",
		"/help":         "/help is a command of the REPL",
	} {
		r := aci(t, work, srv, "", env, "-p", q)
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("aci -p %q: code %d, stderr %q; want 2 and %q", q, r.code, r.stderr, want)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("an unknown command reached the model (%d requests)", n)
	}
	if r := aci(t, work, srv, "", env, "-p", "/etc/hosts is wrong"); r.code != 0 || strings.TrimSpace(r.stdout) != "it is fine" {
		t.Errorf("a path question: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
