package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The sandbox hides aci's state where aci keeps it, a relative
// XDG_STATE_HOME ignored there as everywhere (internal/dirs).
func TestHidesAciStateWhereItIs(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "state")
	t.Setenv("XDG_CONFIG_HOME", "")
	state := filepath.Join(home, ".local", "state", "aci")
	os.MkdirAll(filepath.Join(state, "sessions"), 0o700)
	hidden := SecretStores()
	if !slices.Contains(hidden, real(state)) {
		t.Errorf("%s is not hidden: %v", state, hidden)
	}
	for _, h := range hidden {
		if !filepath.IsAbs(h) || strings.HasSuffix(h, "/state/aci") && !strings.HasPrefix(h, home) {
			t.Errorf("hidden %q", h)
		}
	}
}
