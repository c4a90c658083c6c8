package e2e

import (
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// Two commands of one batch in the same bash window: the next request
// carries both outputs, also when the cache has expired by then and the
// history is rebased (ACI_CACHE_TTL=1 and a command that outlasts it).
func TestBatchOutputsReachModel(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		tail []fakeai.Call
	}{
		{"cache kept", nil, nil},
		{"cache expired", []string{"ACI_CACHE_TTL=1"}, []fakeai.Call{call("bash_1", "run", map[string]any{"command": "sleep 1.5"})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			batch := append([]fakeai.Call{
				call("bash_1", "run", map[string]any{"command": "seq 1 400 | sed s/^/first-/"}),
				call("bash_1", "run", map[string]any{"command": "seq 1 400 | sed s/^/second-/"}),
			}, tc.tail...)
			srv := fakeai.New(t,
				fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}))},
				fakeai.Reply{Content: fakeai.ToolCall(batch...)},
				fakeai.Reply{Content: "both ran"},
			)
			r := aci(t, dir, srv, "", tc.env, "-p", "run both")
			if r.code != 0 || r.stdout != "both ran\n" {
				t.Fatalf("exit %d stdout %q stderr:\n%s", r.code, r.stdout, r.stderr)
			}
			reqs := srv.Requests()
			var next strings.Builder
			for _, m := range reqs[2].Messages {
				next.WriteString(m.Content)
			}
			for _, want := range []string{"400 lines of output, shown in bash_1", "first-1\n", "first-400\n", "second-1\n", "second-400\n"} {
				if !strings.Contains(next.String(), want) {
					t.Errorf("the request after the batch lacks %q", want)
				}
			}
		})
	}
}
