package guard

import (
	"path/filepath"
	"testing"
)

func TestPublishes(t *testing.T) {
	work := guardFixture(t)
	g := New(EnvFromOS())
	for _, tc := range []struct {
		cmd   string
		kinds string
		check func(t *testing.T, p []GitPublish)
	}{
		{cmd: `ls -la`, kinds: ""},
		{cmd: `echo git commit`, kinds: ""},
		{cmd: `git status && git log`, kinds: ""},
		{cmd: `git commit -am "fix"`, kinds: "commit", check: func(t *testing.T, p []GitPublish) {
			if !p[0].All || len(p[0].Messages) != 0 && p[0].Messages[0] != "fix" || p[0].Dir != work {
				t.Errorf("got %+v", p[0])
			}
		}},
		{cmd: `git commit -m "msg" -- a.go`, kinds: "commit", check: func(t *testing.T, p []GitPublish) {
			if p[0].All || len(p[0].Paths) != 1 || p[0].Paths[0] != "a.go" || p[0].Messages[0] != "msg" {
				t.Errorf("got %+v", p[0])
			}
		}},
		{cmd: `git add -f .env && git commit -m x && git push origin main`, kinds: "add commit push", check: func(t *testing.T, p []GitPublish) {
			if !p[0].Force || p[0].Paths[0] != ".env" || p[2].Remote != "origin" || p[2].Refs[0] != "main" {
				t.Errorf("got %+v", p)
			}
		}},
		{cmd: `cd src && git -C .. add . && bash -c 'git commit -m y'`, kinds: "add commit", check: func(t *testing.T, p []GitPublish) {
			if p[0].Dir != work || p[1].Dir != filepath.Join(work, "src") {
				t.Errorf("dirs %q %q", p[0].Dir, p[1].Dir)
			}
		}},
		{cmd: `cp .env notes.txt && echo hello > b.txt && git add . && git commit -m z`, kinds: "add commit", check: func(t *testing.T, p []GitPublish) {
			var from, content bool
			for _, f := range p[1].Pending {
				from = from || f.Path == filepath.Join(work, "notes.txt") && f.From == filepath.Join(work, ".env")
				content = content || f.Path == filepath.Join(work, "b.txt") && f.Content == "hello" && f.Known
			}
			if !from || !content {
				t.Errorf("pending %+v", p[1].Pending)
			}
		}},
		{cmd: `ln .env a.txt && git add a.txt`, kinds: "add", check: func(t *testing.T, p []GitPublish) {
			if len(p[0].Pending) != 1 || p[0].Pending[0].From != filepath.Join(work, ".env") {
				t.Errorf("pending %+v", p[0].Pending)
			}
		}},
		// Other writes into the object store.
		{cmd: `git stash list && git stash pop && git stash show -p`, kinds: ""},
		{cmd: `git stash`, kinds: "stash", check: func(t *testing.T, p []GitPublish) {
			if !p[0].All || p[0].Untracked || p[0].Ignored {
				t.Errorf("got %+v", p[0])
			}
		}},
		{cmd: `git stash push -u -m wip -- src`, kinds: "stash", check: func(t *testing.T, p []GitPublish) {
			if !p[0].Untracked || p[0].Ignored || p[0].Messages[0] != "wip" || len(p[0].Paths) != 1 || p[0].Paths[0] != "src" {
				t.Errorf("got %+v", p[0])
			}
		}},
		{cmd: `git stash -a`, kinds: "stash", check: func(t *testing.T, p []GitPublish) {
			if !p[0].Untracked || !p[0].Ignored {
				t.Errorf("got %+v", p[0])
			}
		}},
		{cmd: `git stash save --all "old style"`, kinds: "stash", check: func(t *testing.T, p []GitPublish) {
			if !p[0].Ignored {
				t.Errorf("got %+v", p[0])
			}
		}},
		{cmd: `git hash-object .env`, kinds: ""}, // computes, stores nothing
		{cmd: `git hash-object -w .env`, kinds: "store", check: func(t *testing.T, p []GitPublish) {
			if len(p[0].Paths) != 1 || p[0].Paths[0] != ".env" {
				t.Errorf("got %+v", p[0])
			}
		}},
		{cmd: `git update-index --add .env`, kinds: "store", check: func(t *testing.T, p []GitPublish) {
			if !p[0].Force || p[0].Paths[0] != ".env" {
				t.Errorf("got %+v", p[0])
			}
		}},
		{cmd: `git apply --check fix.patch`, kinds: ""},
		{cmd: `git apply --cached fix.patch`, kinds: "store"},
		{cmd: `git tag -a v1 -m "release"`, kinds: "store", check: func(t *testing.T, p []GitPublish) {
			if p[0].Messages[0] != "release" {
				t.Errorf("got %+v", p[0])
			}
		}},
		{cmd: `git tag v1`, kinds: ""},
		{cmd: `sh -c 'git -C sub notes add -m note HEAD'`, kinds: "store"},
	} {
		got := g.Publishes(tc.cmd, work)
		kinds := ""
		for i, p := range got {
			if i > 0 {
				kinds += " "
			}
			kinds += p.Kind
		}
		if kinds != tc.kinds {
			t.Errorf("Publishes(%q) kinds = %q, want %q", tc.cmd, kinds, tc.kinds)
			continue
		}
		if tc.check != nil {
			tc.check(t, got)
		}
	}
}
