package windows

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/protocol"
)

func TestReadOnlyCommand(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		read bool
	}{
		{"git diff HEAD", true},
		{"git --no-pager log --oneline -5 | head", true},
		{"git status --short && git diff --stat 2>/dev/null", true},
		{"cat a.go | grep -n func", true},
		{"sed -n '1,40p' main.go", true},
		{"sed 's/a/b/' x.go", true},
		{"find . -name '*.go' | wc -l", true},
		{"git branch -a", true},
		{"git show HEAD~1 -- x.go > /dev/null", true},
		{"echo hi > out.txt", false},
		{"cat a >> b", false},
		{"git checkout main", false},
		{"git -c core.pager=sh log", false},
		{"git diff --output=x", false},
		{"git branch new-feature", false},
		{"rm -rf x", false},
		{"sed -i 's/a/b/' x.go", false},
		{"sed 's/a/b/w out' x.go", false},
		{"sed '1e rm x' f", false},
		{"find . -delete", false},
		{"find . -exec rm {} +", false},
		{"sort -o f f", false},
		{"uniq a b", false},
		{"ls; touch x", false},
		{"cat $(rm x)", false},
		{"python3 -c 'print(1)'", false},
		{"echo 'unbalanced", false},
		{"sed -ni 's/a/b/p' x.go", false},
		{"sed -f script.sed x.go", false},
		{"sort -rno out in", false},
		{"sort -rn in", true},
		{"GIT_EXTERNAL_DIFF=rm git diff", false},
		{"X=1; git diff", false},
		{"git grep -O foo", false},
		{"f() { rm x; }; f", false},
		{"bash -c 'rm x'", false},
		{"cat <<EOF > x\nhi\nEOF", false},
	} {
		why := readOnlyCommand(tc.cmd)
		if (why == "") != tc.read {
			t.Errorf("%q: why = %q, want read-only %v", tc.cmd, why, tc.read)
		}
	}
}

func TestReadOnlyTurnRefusesChanges(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	m := NewManager(Env{Workdir: dir, Approver: ApproverFunc(func(context.Context, ApprovalRequest) Decision { return Decision{Allow: true} })}, FileApp, BashApp)
	defer m.CloseAll()
	ctx := context.Background()
	raw := func(kv ...string) map[string]json.RawMessage {
		out := map[string]json.RawMessage{}
		for i := 0; i < len(kv); i += 2 {
			b, _ := json.Marshal(kv[i+1])
			out[kv[i]] = b
		}
		return out
	}
	m.SetReadOnly("/review changes nothing")
	if r := m.Execute(ctx, "launcher", "open", raw("app", "file", "target", "a.txt")); r.Status != protocol.StatusOK {
		t.Fatalf("open: %+v", r)
	}
	for _, call := range []struct {
		win, action string
		args        map[string]json.RawMessage
	}{
		{"file_1", "write", raw("content", "two\n")},
		{"file_1", "edit", raw("old_text", "one", "new_text", "two")},
	} {
		r := m.Execute(ctx, call.win, call.action, call.args)
		if r.Status != protocol.StatusDenied || !strings.Contains(r.Text, "/review changes nothing") {
			t.Errorf("%s.%s: %+v", call.win, call.action, r)
		}
	}
	if r := m.Execute(ctx, "launcher", "open", raw("app", "bash")); r.Status != protocol.StatusOK {
		t.Fatalf("open bash: %+v", r)
	}
	if r := m.Execute(ctx, "bash_1", "run", raw("command", "echo x > b.txt")); r.Status != protocol.StatusDenied {
		t.Errorf("a writing command ran: %+v", r)
	}
	if r := m.Execute(ctx, "bash_1", "run", raw("command", "cat a.txt")); r.Status != protocol.StatusOK {
		t.Errorf("a reading command was refused: %+v", r)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "one\n" {
		t.Errorf("a.txt = %q", data)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Error("b.txt was written")
	}
	m.SetReadOnly("")
	if r := m.Execute(ctx, "file_1", "write", raw("content", "two\n")); r.Status != protocol.StatusOK {
		t.Errorf("write after the read-only turn: %+v", r)
	}
}
