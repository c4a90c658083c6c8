package e2e

import (
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// A flag-like word after -p is a usage error naming it, never a question
// sent to the model; after "--" it is the question.
func TestPFollowedByAFlagIsAUsageError(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Content: "answered"})
	dir := t.TempDir()
	for _, args := range [][]string{
		{"-p", "--verbose"},
		{"-p", "-q"},
		{"-p", "--bogus"},
		{"-p", "--level=3", "hi"},
	} {
		r := aci(t, dir, srv, "", nil, args...)
		if r.code != 2 || !strings.Contains(r.stderr, args[1]) {
			t.Errorf("aci %q: exit %d, stderr %q", args, r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "-p -- "+args[1]) {
			t.Errorf("aci %q: stderr does not say how to ask it: %q", args, r.stderr)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the model was asked %d times", n)
	}
	r := aci(t, dir, srv, "", nil, "-p", "--", "--verbose")
	if r.code != 0 || !strings.Contains(r.stdout, "answered") {
		t.Fatalf("aci -p -- --verbose: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !mentions(reqs[0], "--verbose") {
		t.Fatalf("the question was not --verbose: %+v", reqs)
	}
}
