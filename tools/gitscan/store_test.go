package gitscan

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// git add, git stash and the plumbing that stores files are checked like
// a commit: a secret value in what they take, and ignored files.
func TestCheckStores(t *testing.T) {
	gitEnv(t)
	for _, tc := range []struct {
		name   string
		setup  func(t *testing.T, dir string)
		op     Op     // Dir filled in
		file   string // want a finding naming this file; "" for none
		secret bool
		reason string // a word of the reason
	}{
		{name: "add of a copy of .env", setup: func(t *testing.T, dir string) { write(t, dir, "settings.txt", "API_TOKEN="+secretValue) },
			op: Op{Kind: "add", Paths: []string{"settings.txt"}}, file: "settings.txt", secret: true, reason: "git add would store a secret value"},
		{name: "add -A takes it too", setup: func(t *testing.T, dir string) { write(t, dir, "sub/leak.cfg", secretValue) },
			op: Op{Kind: "add", All: true}, file: "sub/leak.cfg", secret: true},
		{name: "add of a clean file", setup: func(t *testing.T, dir string) { write(t, dir, "ok.txt", "fine") },
			op: Op{Kind: "add", Paths: []string{"."}}},
		{name: "add of a file the command copies first",
			op: Op{Kind: "add", Paths: []string{"copy.txt"}, Pending: []Pending{{Path: "copy.txt", From: ".env"}}}, file: "copy.txt", secret: true},
		{name: "a copy not added is not asked",
			op: Op{Kind: "add", Paths: []string{"main.go"}, Pending: []Pending{{Path: "other.txt", From: ".env"}}}},
		{name: "add -f of an ignored file", op: Op{Kind: "add", Force: true, Paths: []string{".env"}}, file: ".env", reason: "a file git ignores"},
		{name: "stash -a takes .env", setup: func(t *testing.T, dir string) { write(t, dir, "debug.log", "x") },
			op: Op{Kind: "stash", All: true, Untracked: true, Ignored: true}, file: ".env", reason: "git stash would store .env"},
		{name: "stash -u of an untracked copy", setup: func(t *testing.T, dir string) { write(t, dir, "backup.cfg", secretValue) },
			op: Op{Kind: "stash", All: true, Untracked: true}, file: "backup.cfg", secret: true},
		{name: "stash without -u leaves untracked files", setup: func(t *testing.T, dir string) { write(t, dir, "backup.cfg", secretValue) },
			op: Op{Kind: "stash", All: true}},
		{name: "stash of a tracked change", setup: func(t *testing.T, dir string) { write(t, dir, "main.go", "package main // "+secretValue) },
			op: Op{Kind: "stash", All: true}, file: "main.go", secret: true},
		{name: "stash of a staged change", setup: func(t *testing.T, dir string) {
			write(t, dir, "main.go", "package main // "+secretValue)
			run(t, dir, "add", "main.go")
			write(t, dir, "main.go", "package main\n")
		}, op: Op{Kind: "stash", All: true}, file: "main.go", secret: true},
		{name: "hash-object -w of .env", op: Op{Kind: "store", Paths: []string{".env"}}, file: ".env", secret: true, reason: "git would store"},
		{name: "update-index --add of .env", op: Op{Kind: "store", Force: true, Paths: []string{".env"}}, file: ".env"},
		{name: "tag message", op: Op{Kind: "store", Messages: []string{"v1 " + secretValue}}, file: "a message", secret: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := newRepo(t)
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			op := tc.op
			op.Dir = dir
			for i, p := range op.Pending {
				op.Pending[i].Path = filepath.Join(dir, p.Path)
				if p.From != "" {
					op.Pending[i].From = filepath.Join(dir, p.From)
				}
			}
			f, err := Check(context.Background(), []Op{op}, testSecrets)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.file == "" && f != nil:
				t.Errorf("unexpected finding %+v", f)
			case tc.file == "":
			case f == nil:
				t.Errorf("no finding, want %s", tc.file)
			case f.File != tc.file || (f.Secret != "") != tc.secret || !strings.Contains(f.Reason(), tc.reason):
				t.Errorf("finding %+v (%s), want %s secret=%v", f, f.Reason(), tc.file, tc.secret)
			}
			if f != nil && strings.Contains(f.Reason(), secretValue) {
				t.Error("the reason shows the value")
			}
		})
	}
}
