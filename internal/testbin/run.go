package testbin

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testutil"
)

// Key is the API key the binary gets in tests; it must never show in
// what aci writes.
const Key = "sk-test-secret-key-1234567890"

// Env is the binary's whole environment in a test: a fresh home, the
// test key and model, srv's URL when srv is set, then extra (which wins).
func Env(t testing.TB, srv *fakeai.Server, extra ...string) []string {
	url := ""
	if srv != nil {
		url = srv.URL
	}
	return testutil.ChildEnv(t.TempDir(), url, Key, extra...)
}

// Command is the binary with args in dir with exactly env, not started.
func Command(t testing.TB, dir string, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(Build(t), args...)
	cmd.Dir, cmd.Env = dir, env
	return cmd
}

// Result is how a run of the binary ended.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Run runs cmd to its end with stdin as its input. Whatever the test, the
// key must not appear in the output, nor a Go stack trace on stderr.
func Run(t testing.TB, cmd *exec.Cmd, stdin string) Result {
	t.Helper()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := Result{Stdout: out.String(), Stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.Code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run aci: %v", err)
	}
	if strings.Contains(r.Stdout+r.Stderr, Key) {
		t.Errorf("the API key appeared in aci's output")
	}
	if strings.Contains(r.Stderr, "goroutine ") || strings.Contains(r.Stderr, "panic:") {
		t.Errorf("stack trace on stderr:\n%s", r.Stderr)
	}
	return r
}
