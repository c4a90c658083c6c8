package rules

import (
	"fmt"
	"testing"

	"github.com/aci-dev/aci/tools/settings"
)

// What rules cost each action: the deny check every command takes, with
// no rules and with twenty.
func BenchmarkDenied(b *testing.B) {
	b.Setenv("XDG_CONFIG_HOME", b.TempDir())
	for _, n := range []int{0, 20} {
		var deny []settings.Entry
		for i := range n {
			deny = append(deny, settings.Entry{Pattern: fmt.Sprintf("bash:tool%d --force", i), Source: "b"})
		}
		s, _ := Load(b.TempDir(), settings.Policy{Person: settings.Permissions{Deny: deny}})
		b.Run(fmt.Sprint(n, "rules"), func(b *testing.B) {
			for b.Loop() {
				s.Denied("command", "go test ./... && git status")
			}
		})
	}
}
