package session

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testfs"
)

// TestCommandsAndSkillsCost measures what the command table and listed
// skills add to a session's first request (bytes of the request body):
// command files nothing (they reach the model only when run), a skill its
// launcher line. go test -run TestCommandsAndSkillsCost -v ./session
func TestCommandsAndSkillsCost(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	first := func(setup func(work string)) int {
		srv := fakeai.New(t, fakeai.Reply{Content: "ok"})
		f, work := newFactory(t, srv)
		setup(work)
		s := opened(t, f, work)
		if _, err := asked(context.Background(), s, "hello"); err != nil {
			t.Fatal(err)
		}
		// The workspace's path is in the system message: count without it.
		return len(srv.Requests()[0].Body) - len(work)
	}
	skill := func(work string, i int) {
		testfs.File(t, filepath.Join(work, fmt.Sprintf(".aci/skills/skill-%d/SKILL.md", i)),
			fmt.Sprintf("---\nname: skill-%d\ndescription: Fill in and read PDF forms, extract their fields and text\n---\n# Body\n%0500d", i, 0))
	}
	base := first(func(string) {})
	commands := first(func(work string) {
		for i := range 20 {
			testfs.File(t, filepath.Join(work, fmt.Sprintf(".aci/commands/cmd-%d.md", i)), "---\ndescription: a command\n---\nDo the thing with $ARGUMENTS.")
		}
	})
	one := first(func(work string) { skill(work, 1) })
	five := first(func(work string) {
		for i := range 5 {
			skill(work, i)
		}
	})
	t.Logf("first request: %d bytes; 20 command files +%d; 1 skill +%d; 5 skills +%d (+%d per further skill; description 56 characters)",
		base, commands-base, one-base, five-base, (five-one)/4)
	if commands != base {
		t.Errorf("command files changed the first request by %d bytes", commands-base)
	}
	if one-base > 250 || (five-one)/4 > 100 {
		t.Errorf("a skill costs %d bytes, each further one %d", one-base, (five-one)/4)
	}
}
