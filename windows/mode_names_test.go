package windows

import "testing"

// TestParseModeClaudeNames: Claude Code's acceptEdits and bypassPermissions
// are aliases; "default" stays aci's default (docs/protocol.md §10).
func TestParseModeClaudeNames(t *testing.T) {
	for in, want := range map[string]PermMode{
		"default": ModeDefault, "acceptEdits": ModeDefault, "acceptedits": ModeDefault,
		"bypassPermissions": ModeYes, "ask": ModeAsk, "plan": ModePlan, " yes ": ModeYes,
	} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseMode("dontAsk"); err == nil {
		t.Error("an unknown name was taken")
	}
	for m, want := range map[PermMode]string{ModeDefault: "default (acceptEdits)", ModeAsk: "ask (Claude Code's default)", ModePlan: "plan", ModeYes: "yes (bypassPermissions)"} {
		if got := m.Shown(); got != want {
			t.Errorf("%s.Shown() = %q, want %q", m, got, want)
		}
	}
}
