package windows

import "testing"

func TestAgentModeNeverFreerThanParent(t *testing.T) {
	for _, tc := range []struct {
		asked  string
		parent PermMode
		want   PermMode
		noted  bool
	}{
		{"", ModeDefault, ModePlan, false},
		{"plan", ModeYes, ModePlan, false},
		{"default", ModeDefault, ModeDefault, false},
		{"default", ModeYes, ModeDefault, false}, // a child never gets yes
		{"default", ModeAsk, ModeAsk, true},
		{"default", ModePlan, ModePlan, true},
	} {
		got, note, err := agentMode(tc.asked, tc.parent)
		if err != nil || got != tc.want || (note != "") != tc.noted {
			t.Errorf("agentMode(%q, %s) = %s, %q, %v; want %s", tc.asked, tc.parent, got, note, err, tc.want)
		}
	}
	if _, _, err := agentMode("yes", ModeYes); err == nil {
		t.Error("an agent in yes mode was allowed")
	}
}

func TestModeSwitchUnderFollowsItsLimit(t *testing.T) {
	parent := NewModeSwitch(ModeDefault)
	child := NewModeSwitch(ModeDefault).Under(parent)
	for _, tc := range []struct{ parent, want PermMode }{
		{ModeAsk, ModeAsk}, {ModePlan, ModePlan}, {ModeYes, ModeDefault}, {ModeDefault, ModeDefault},
	} {
		parent.Set(tc.parent)
		if got := child.Get(); got != tc.want {
			t.Errorf("parent %s: child %s, want %s", tc.parent, got, tc.want)
		}
	}
}
