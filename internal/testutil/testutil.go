// Package testutil holds what aci's tests share: processes read from
// /proc, loopback ports, the environment the real binary runs with, and
// finding the servers .ci/run installs (a test without one skips, saying
// why). It links nothing heavy: the browser driver is internal/browsertest.
// Only tests import it.
package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ProcStat reads /proc/PID/stat and returns its fields from the third on
// (state first), or false when the process is gone.
func ProcStat(pid int) ([]string, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces
	if i < 0 {
		return nil, false
	}
	f := strings.Fields(s[i+1:])
	return f, len(f) > 0
}

// Alive reports whether pid runs; zombies waiting for a reaper do not.
func Alive(pid int) bool {
	f, ok := ProcStat(pid)
	return ok && f[0] != "Z" && f[0] != "X"
}

// ZombieStatus reads the exit code of an exited, unreaped process.
func ZombieStatus(pid int) (int, bool) {
	f, ok := ProcStat(pid)
	// f[0] is field 3 (state); exit_code is field 52.
	if !ok || len(f) < 50 || f[0] != "Z" {
		return 0, false
	}
	var ws int
	if _, err := fmt.Sscan(f[49], &ws); err != nil {
		return 0, false
	}
	return ws, true
}

// ChildEnv is the whole environment of the aci binary in a test: a fresh
// home and state folder, a test key and model, the fake server's URL (when
// baseURL is set), then extra.
func ChildEnv(home, baseURL, key string, extra ...string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"OPENAI_API_KEY=" + key, "OPENAI_MODEL=test-model",
	}
	if baseURL != "" {
		env = append(env, "OPENAI_BASE_URL="+baseURL)
	}
	return append(env, extra...)
}
