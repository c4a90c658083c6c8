package dirs

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestFolders(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, tc := range []struct {
		state, config       string
		wantState, wantConf string
	}{
		{"", "", filepath.Join(home, ".local/state/aci"), filepath.Join(home, ".config/aci")},
		{"/x/state", "/x/conf/", "/x/state/aci", "/x/conf/aci"},
		// Relative values are ignored, as the XDG specification says.
		{"state", "conf", filepath.Join(home, ".local/state/aci"), filepath.Join(home, ".config/aci")},
		{"./state", "../conf", filepath.Join(home, ".local/state/aci"), filepath.Join(home, ".config/aci")},
	} {
		t.Setenv("XDG_STATE_HOME", tc.state)
		t.Setenv("XDG_CONFIG_HOME", tc.config)
		if got, err := State(); err != nil || got != tc.wantState {
			t.Errorf("XDG_STATE_HOME=%q: State() = %q, %v; want %q", tc.state, got, err, tc.wantState)
		}
		if got, err := Config(); err != nil || got != tc.wantConf {
			t.Errorf("XDG_CONFIG_HOME=%q: Config() = %q, %v; want %q", tc.config, got, err, tc.wantConf)
		}
		if got := StateFile("sessions"); got != filepath.Join(tc.wantState, "sessions") {
			t.Errorf("StateFile(sessions) = %q", got)
		}
		if p := Private(); !slices.Contains(p, tc.wantState) || !slices.Contains(p, tc.wantConf) {
			t.Errorf("Private() = %v", p)
		}
	}
}
