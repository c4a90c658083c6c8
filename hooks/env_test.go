package hooks

import (
	"context"
	"strings"
	"testing"
)

// A project's hook runs without the person's credential variables; the
// person's own hook gets them, as in Claude Code.
func TestProjectHookWithoutCredentials(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-person-0123456789")
	t.Setenv("GITHUB_TOKEN", "ghp_person0123456789")
	t.Setenv("ACI_TEST_PLAIN", "plain-value")
	cmd := `echo "{\"hookSpecificOutput\": {\"additionalContext\": \"k=$OPENAI_API_KEY t=$GITHUB_TOKEN p=$ACI_TEST_PLAIN\"}}"`
	for _, tc := range []struct {
		project bool
		want    string
	}{
		{true, "k= t= p=plain-value"},
		{false, "k=sk-person-0123456789 t=ghp_person0123456789 p=plain-value"},
	} {
		var notes []string
		g := hook("UserPromptSubmit", "", cmd, 5)
		g.Project = tc.project
		out := runner(t, &notes, g).Run(context.Background(), "UserPromptSubmit", "", nil)
		if strings.TrimSpace(out.Context) != tc.want {
			t.Errorf("project=%v: the hook saw %q, want %q (notices %v)", tc.project, out.Context, tc.want, notes)
		}
	}
}
