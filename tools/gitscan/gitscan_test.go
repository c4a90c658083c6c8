package gitscan

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const secretValue = "sk-live-9f8e7d6c5b4a39281706"

var testSecrets = []Secret{{Label: ".env: API_TOKEN", Value: secretValue}}

// gitEnv isolates git from the machine's configuration.
func gitEnv(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(k, "Tester")
	}
	for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(k, "tester@example.com")
	}
}

func run(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func write(t testing.TB, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// newRepo makes a repository with one clean commit and .env ignored.
func newRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	run(t, dir, "init", "-q", "-b", "main")
	write(t, dir, ".gitignore", ".env\n*.log\n")
	write(t, dir, "main.go", "package main\n")
	write(t, dir, ".env", "API_TOKEN="+secretValue+"\n")
	run(t, dir, "add", ".")
	run(t, dir, "commit", "-q", "-m", "start")
	return dir
}

func TestCheck(t *testing.T) {
	gitEnv(t)
	big := bytes.Repeat([]byte{0, 1, 2, 3}, 2<<20) // 8 MiB, over maxBlob
	big = append(big, secretValue...)
	// staged writes a file and stages it.
	staged := func(name, content string) func(*testing.T, string) {
		return func(t *testing.T, dir string) {
			write(t, dir, name, content)
			run(t, dir, "add", name)
		}
	}
	tests := []struct {
		name   string
		setup  func(t *testing.T, dir string)
		ops    func(dir string) []Op
		file   string // want a finding naming this file; "" for none
		secret bool   // the finding is a secret (else an ignored file)
	}{
		{name: "staged file with a secret",
			setup: staged("config.go", "var k = \""+secretValue+"\"\n"),
			ops:   commit(), file: "config.go", secret: true},
		{name: "clean change",
			setup: staged("config.go", "var k = 1\n"),
			ops:   commit()},
		{name: "base64 of a secret",
			setup: staged("blob.txt", "auth: "+base64.StdEncoding.EncodeToString([]byte("user:"+secretValue))+"\n"),
			ops:   commit(), file: "blob.txt", secret: true},
		{name: "added in the same command",
			setup: func(t *testing.T, dir string) { write(t, dir, "notes.md", secretValue) },
			ops: func(dir string) []Op {
				return []Op{{Kind: "add", Dir: dir, Paths: []string{"notes.md"}}, {Kind: "commit", Dir: dir}}
			},
			file: "notes.md", secret: true},
		{name: "commit -a of a tracked file",
			setup: func(t *testing.T, dir string) { write(t, dir, "main.go", "package main // "+secretValue+"\n") },
			ops:   func(dir string) []Op { return []Op{{Kind: "commit", Dir: dir, All: true}} },
			file:  "main.go", secret: true},
		{name: "secret in the message",
			ops: func(dir string) []Op {
				return []Op{{Kind: "commit", Dir: dir, Messages: []string{"token " + secretValue}}}
			},
			file: "the commit message", secret: true},
		{name: "force-added ignored file",
			ops: func(dir string) []Op {
				return []Op{{Kind: "add", Dir: dir, Force: true, Paths: []string{".env"}}, {Kind: "commit", Dir: dir}}
			},
			file: ".env"},
		{name: "ignored file staged earlier",
			setup: func(t *testing.T, dir string) { write(t, dir, "debug.log", "x"); run(t, dir, "add", "-f", "debug.log") },
			ops:   commit(), file: "debug.log"},
		{name: "big binary file is not read",
			setup: staged("data.bin", string(big)),
			ops:   commit()},
		{name: "small binary file is read",
			setup: staged("blob.bin", "\x00\x01"+secretValue+"\x00"),
			ops:   commit(), file: "blob.bin", secret: true},
		{name: "commit in a subfolder with a pathspec",
			setup: func(t *testing.T, dir string) {
				write(t, dir, "sub/a.txt", "x")
				run(t, dir, "add", "sub/a.txt")
				run(t, dir, "commit", "-q", "-m", "sub")
				write(t, dir, "sub/a.txt", secretValue)
			},
			ops: func(dir string) []Op {
				return []Op{{Kind: "commit", Dir: filepath.Join(dir, "sub"), Paths: []string{"a.txt"}}}
			},
			file: "sub/a.txt", secret: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := newRepo(t)
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			f, err := Check(context.Background(), tc.ops(dir), testSecrets)
			if err != nil {
				t.Fatal(err)
			}
			if tc.file == "" {
				if f != nil {
					t.Fatalf("found %+v, want nothing", f)
				}
				return
			}
			if f == nil {
				t.Fatalf("found nothing, want %s", tc.file)
			}
			if !strings.Contains(f.File, tc.file) || (f.Secret != "") != tc.secret {
				t.Fatalf("found %+v, want file %s (secret %v)", f, tc.file, tc.secret)
			}
			if r := f.Reason(); strings.Contains(r, secretValue) || !strings.Contains(r, tc.file) {
				t.Fatalf("reason %q must name %s and not show the secret", r, tc.file)
			}
		})
	}
}

func commit() func(dir string) []Op {
	return func(dir string) []Op { return []Op{{Kind: "commit", Dir: dir}} }
}

func TestCheckNotARepo(t *testing.T) {
	gitEnv(t)
	dir := t.TempDir()
	write(t, dir, "a.txt", secretValue)
	f, err := Check(context.Background(), []Op{{Kind: "commit", Dir: dir, All: true}, {Kind: "push", Dir: dir}}, testSecrets)
	if f != nil || err != nil {
		t.Fatalf("Check outside a repository = %+v, %v; want nothing", f, err)
	}
}

func TestCheckPush(t *testing.T) {
	gitEnv(t)
	dir := newRepo(t)
	remote := t.TempDir()
	run(t, remote, "init", "-q", "--bare")
	run(t, dir, "remote", "add", "origin", remote)
	run(t, dir, "push", "-q", "-u", "origin", "main")
	push := []Op{{Kind: "push", Dir: dir}}
	if f, err := Check(context.Background(), push, testSecrets); f != nil || err != nil {
		t.Fatalf("nothing to push: got %+v, %v", f, err)
	}
	write(t, dir, "clean.txt", "hello")
	run(t, dir, "add", "clean.txt")
	run(t, dir, "commit", "-q", "-m", "clean")
	if f, err := Check(context.Background(), push, testSecrets); f != nil || err != nil {
		t.Fatalf("clean commit: got %+v, %v", f, err)
	}
	write(t, dir, "leak.txt", "k="+secretValue)
	run(t, dir, "add", "leak.txt")
	run(t, dir, "commit", "-q", "-m", "leak")
	f, err := Check(context.Background(), []Op{{Kind: "push", Dir: dir, Remote: "origin", Refs: []string{"main"}}}, testSecrets)
	if err != nil || f == nil || f.File != "leak.txt" || f.Op != "push" {
		t.Fatalf("push of a secret: got %+v, %v", f, err)
	}
	run(t, dir, "reset", "-q", "--hard", "HEAD~1")
	write(t, dir, "debug.log", "x")
	run(t, dir, "add", "-f", "debug.log")
	run(t, dir, "commit", "-q", "-m", "log")
	f, err = Check(context.Background(), push, testSecrets)
	if err != nil || f == nil || f.File != "debug.log" || f.Secret != "" {
		t.Fatalf("push of an ignored file: got %+v, %v", f, err)
	}
}

// BenchmarkCommit1000 checks a commit of 1,000 staged files of about 2 KB.
func BenchmarkCommit1000(b *testing.B) {
	gitEnv(b)
	dir := newRepo(b)
	line := strings.Repeat("func f() { return nil } // some ordinary source text\n", 40)
	for i := 0; i < 1000; i++ {
		write(b, dir, fmt.Sprintf("pkg%02d/file%04d.go", i%50, i), fmt.Sprintf("package p%d\n%s", i, line))
	}
	run(b, dir, "add", ".")
	secrets := append(testSecrets, Secret{Label: "the API key", Value: "sk-proj-abcdefghijklmnop123456"},
		Secret{Label: ".env: DB_PASSWORD", Value: "hunter2-correct-horse"})
	ops := []Op{{Kind: "commit", Dir: dir, All: true}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := Check(context.Background(), ops, secrets)
		if f != nil || err != nil {
			b.Fatal(f, err)
		}
	}
}
