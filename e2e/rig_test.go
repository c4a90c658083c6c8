// Package e2e is aci's end-to-end suite: each test runs the real binary
// (built once, internal/testbin) in a fresh workspace against the scripted
// model of internal/fakeai, and looks at what a person or program would
// see: output, exit code, files, requests, processes.
package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testbin"
	"github.com/aci-dev/aci/internal/testutil"
)

const testKey = "sk-test-secret-key-1234567890"

type runResult struct {
	stdout, stderr string
	code           int
}

// aci runs the real binary in dir against srv, with stdin as its input.
func aci(t *testing.T, dir string, srv *fakeai.Server, stdin string, env []string, args ...string) runResult {
	t.Helper()
	return aciEnv(t, dir, baseEnv(t, srv, env...), stdin, args...)
}

// aciEnv runs the real binary in dir with exactly the environment env.
func aciEnv(t *testing.T, dir string, env []string, stdin string, args ...string) runResult {
	t.Helper()
	cmd := exec.Command(testbin.Build(t), args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run aci: %v", err)
	}
	r := runResult{out.String(), errb.String(), code}
	if strings.Contains(r.stdout+r.stderr, testKey) {
		t.Errorf("the API key appeared in aci's output")
	}
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic:") {
		t.Errorf("stack trace on stderr:\n%s", r.stderr)
	}
	return r
}

func baseEnv(t *testing.T, srv *fakeai.Server, extra ...string) []string {
	url := ""
	if srv != nil {
		url = srv.URL
	}
	return testutil.ChildEnv(t.TempDir(), url, testKey, extra...)
}

func call(window, action string, params map[string]any) fakeai.Call {
	return fakeai.Call{Window: window, Action: action, Params: params}
}

// writeFile writes text at path, making its folders.
func writeFile(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

// bgServer is a background server's server.json, as aci writes it.
type bgServer struct {
	PID   int    `json:"pid"`
	Token string `json:"token"`
}
