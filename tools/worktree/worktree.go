// Package worktree makes, shows, merges and drops the git worktrees
// sessions work in (docs/protocol.md §11): worktree NAME of a repository at
// REPO is REPO.worktrees/NAME beside it, on the new branch aci/NAME, so the
// workspace's own commands never see it. Every git call goes through
// tools/safegit: no hook, filter, pager or editor of the repository runs.
package worktree

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aci-dev/aci/tools/safegit"
)

// UsageError is what the person can fix: not a repository, a name taken.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usageErr(format string, args ...any) error {
	return &UsageError{fmt.Sprintf(format, args...)}
}

// ValidName says whether s may name a worktree: 1 to 64 letters, digits,
// dots, underscores and dashes, starting with a letter or digit, with no
// ".." and no ".lock" at its end (git's own rules for a ref). A loop, not
// a regular expression: `{0,63}` compiles to 64 copies, which every start
// of aci paid for (59 KB, 861 allocations of package init).
func ValidName(s string) bool {
	if len(s) == 0 || len(s) > 64 || strings.Contains(s, "..") || strings.HasSuffix(s, ".lock") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// Worktree is one session's worktree.
type Worktree struct {
	Name, Branch, Path string
	Repo               string // the main repository's top folder
}

// run runs aci's own git call in dir (tools/safegit).
func run(dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := safegit.Output(ctx, dir, nil, nil, args...)
	return strings.TrimSpace(string(out)), err
}

// RepoTop is the main repository's top folder for a folder in it or in one
// of its worktrees; a usage error when dir is in no repository.
func RepoTop(dir string) (string, error) {
	common, err := run(dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", usageErr("--worktree needs a git repository: %s is not in one (git init, or leave out --worktree)", dir)
	}
	if filepath.Base(common) != ".git" {
		return "", usageErr("--worktree needs a repository with a work tree: %s is in a bare one", dir)
	}
	return filepath.Dir(common), nil
}

// At is worktree name of the repository with top folder top.
func At(top, name string) Worktree {
	return Worktree{Name: name, Branch: "aci/" + name, Repo: top,
		Path: filepath.Join(filepath.Dir(top), filepath.Base(top)+".worktrees", name)}
}

// New makes worktree name (a new one's name when "") of workdir's
// repository, on a new branch from the current commit.
func New(workdir, name string) (Worktree, error) {
	top, err := RepoTop(workdir)
	if err != nil {
		return Worktree{}, err
	}
	if _, err := run(top, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err != nil {
		return Worktree{}, usageErr("--worktree needs a commit to start from: the repository at %s has none yet", top)
	}
	if name == "" {
		var b [3]byte
		rand.Read(b[:])
		name = time.Now().Format("20060102-1504") + "-" + hex.EncodeToString(b[:])
	}
	wt := At(top, name)
	if _, err := os.Stat(wt.Path); err == nil {
		return Worktree{}, usageErr("the worktree %s exists already: pick another name, or merge or drop it (aci worktree merge|drop %s)", wt.Path, name)
	}
	if _, err := run(top, "rev-parse", "--verify", "--quiet", "refs/heads/"+wt.Branch); err == nil {
		return Worktree{}, usageErr("the branch %s exists already: pick another name", wt.Branch)
	}
	if err := os.MkdirAll(filepath.Dir(wt.Path), 0o755); err != nil {
		return Worktree{}, fmt.Errorf("make %s: %w", filepath.Dir(wt.Path), err)
	}
	if _, err := run(top, "worktree", "add", "-b", wt.Branch, wt.Path, "HEAD"); err != nil {
		return Worktree{}, fmt.Errorf("make the worktree: %w", err)
	}
	// The session works in the same place below the top as the person.
	if rel, err := filepath.Rel(top, workdir); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		if fi, err := os.Stat(filepath.Join(wt.Path, rel)); err == nil && fi.IsDir() {
			wt.Path = filepath.Join(wt.Path, rel)
		}
	}
	return wt, nil
}

// Root is the worktree's top folder (wt.Path may be below it).
func (wt Worktree) Root() string {
	return At(wt.Repo, wt.Name).Path
}

// CommitAll commits whatever the session left uncommitted in the
// Worktree, so the branch holds all of it; false when there was nothing.
func (wt Worktree) CommitAll() (bool, error) {
	dir := wt.Root()
	if _, err := run(dir, "add", "-A"); err != nil {
		return false, err
	}
	if _, err := run(dir, "diff", "--cached", "--quiet"); err == nil {
		return false, nil
	}
	args := []string{"commit", "--no-verify", "-q", "-m", "aci: worktree " + wt.Name}
	if who, _ := run(dir, "config", "user.email"); who == "" {
		args = append([]string{"-c", "user.name=aci", "-c", "user.email=aci@localhost"}, args...)
	}
	if _, err := run(dir, args...); err != nil {
		return false, err
	}
	return true, nil
}

// base is where the worktree's branch left the main repository's HEAD.
func (wt Worktree) base() (string, error) {
	head, err := run(wt.Repo, "rev-parse", "HEAD")
	if err != nil {
		return "", err
	}
	return run(wt.Repo, "merge-base", head, "refs/heads/"+wt.Branch)
}

// Diff is everything the worktree changed since it left HEAD, as one
// diff (its uncommitted changes committed first).
func (wt Worktree) Diff(stat bool) (string, error) {
	if _, err := wt.CommitAll(); err != nil {
		return "", err
	}
	base, err := wt.base()
	if err != nil {
		return "", err
	}
	args := []string{"diff", "--no-color", "--no-ext-diff", base, "refs/heads/" + wt.Branch}
	if stat {
		args = append(args[:3], "--stat", base, "refs/heads/"+wt.Branch)
	}
	return run(wt.Repo, args...)
}

// Merge merges the worktree's branch into the main repository's current
// branch, then removes the worktree and the branch. A conflict is undone
// and reported; the worktree stays.
func (wt Worktree) Merge() error {
	if _, err := wt.CommitAll(); err != nil {
		return err
	}
	args := []string{"merge", "--no-ff", "--no-edit", "-m", "aci: merge worktree " + wt.Name, "refs/heads/" + wt.Branch}
	if who, _ := run(wt.Repo, "config", "user.email"); who == "" {
		args = append([]string{"-c", "user.name=aci", "-c", "user.email=aci@localhost"}, args...)
	}
	if _, err := run(wt.Repo, args...); err != nil {
		run(wt.Repo, "merge", "--abort")
		return fmt.Errorf("%s does not merge cleanly into %s (nothing was changed there; the worktree stays at %s): %w", wt.Branch, wt.Repo, wt.Root(), err)
	}
	return wt.Drop()
}

// Drop removes the worktree and its branch.
func (wt Worktree) Drop() error {
	if _, err := run(wt.Repo, "worktree", "remove", "--force", wt.Root()); err != nil {
		return err
	}
	_, err := run(wt.Repo, "branch", "-D", wt.Branch)
	os.Remove(filepath.Dir(wt.Root())) // REPO.worktrees, when it is empty
	return err
}

// Find is worktree name of the repository with top folder top; a usage
// error when its branch does not exist.
func Find(top, name string) (Worktree, error) {
	if !ValidName(name) {
		return Worktree{}, usageErr("%q is not a worktree name", name)
	}
	wt := At(top, name)
	if _, err := run(top, "rev-parse", "--verify", "--quiet", "refs/heads/"+wt.Branch); err != nil {
		return Worktree{}, usageErr("no worktree %q: no branch %s in %s", name, wt.Branch, top)
	}
	return wt, nil
}

// List is the names of the repository's worktree branches (aci/NAME).
func List(top string) ([]string, error) {
	out, err := run(top, "for-each-ref", "--format=%(refname:strip=3)", "refs/heads/aci/")
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}
