// Package dirs is the one place that knows aci's folders on the machine:
// its state (transcripts, input histories, logs), its configuration and
// what the sandbox hides of them. The XDG base directory variables are
// honoured as the specification says: a value that is not an absolute
// path is ignored, so XDG_STATE_HOME=state never puts transcripts in the
// folder aci happens to run in (a workspace its commands can read).
package dirs

import (
	"errors"
	"os"
	"path/filepath"
)

// base is $env when it is an absolute path, else ~/fallback.
func base(env, fallback string) (string, error) {
	if d := os.Getenv(env); filepath.IsAbs(d) {
		return filepath.Clean(d), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	if home == "" {
		return "", errors.New("no home folder")
	}
	return filepath.Join(home, fallback), nil
}

// State is aci's state folder: $XDG_STATE_HOME/aci, by default
// ~/.local/state/aci.
func State() (string, error) {
	d, err := base("XDG_STATE_HOME", filepath.Join(".local", "state"))
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "aci"), nil
}

// Config is aci's configuration folder: $XDG_CONFIG_HOME/aci, by default
// ~/.config/aci.
func Config() (string, error) {
	d, err := base("XDG_CONFIG_HOME", ".config")
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "aci"), nil
}

// StateFile is name in the state folder ("sessions", "acp.log"), "" when
// there is no home.
func StateFile(name ...string) string {
	d, err := State()
	if err != nil {
		return ""
	}
	return filepath.Join(append([]string{d}, name...)...)
}

// ConfigFile is name in the configuration folder, "" when there is no
// home.
func ConfigFile(name string) string {
	d, err := Config()
	if err != nil {
		return ""
	}
	return filepath.Join(d, name)
}

// Private are aci's own folders a command must not see: its state
// (other sessions' transcripts and input) and its configuration (a
// command must not widen its own network), where they are now and where
// they are by default.
func Private() []string {
	var out []string
	add := func(d string, err error) {
		if err == nil && d != "" {
			out = append(out, d)
		}
	}
	add(State())
	add(Config())
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		out = append(out, filepath.Join(home, ".local", "state", "aci"), filepath.Join(home, ".config", "aci"))
	}
	return out
}
