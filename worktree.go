package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/aci-dev/aci/tools/safegit"
	"github.com/aci-dev/aci/ui"
)

// Worktrees (PROTOCOL.md §11): --worktree [NAME] runs a session in a new
// git worktree on the branch aci/NAME, at REPO.worktrees/NAME beside the
// repository's folder: outside the workspace's tree, so the workspace's
// own commands (a search, a build) never see it. What it changed is one
// diff the person merges or drops; nothing is merged unasked.

// worktreeFlag is --worktree, --worktree=NAME or --worktree NAME (the next
// word, when it is a name).
type worktreeFlag struct {
	c    *config
	bare bool
}

func (f *worktreeFlag) String() string   { return "" }
func (f *worktreeFlag) IsBoolFlag() bool { return true }

func (f *worktreeFlag) Set(v string) error {
	switch v {
	case "true":
		f.c.WorktreeSet, f.bare = true, true
	case "false":
		f.c.WorktreeSet = false
	default:
		if !validWorktreeName(v) {
			return fmt.Errorf("--worktree: %q is not a worktree name (letters, digits, '.', '_', '-'; at most 64)", v)
		}
		f.c.WorktreeSet, f.c.Worktree = true, v
	}
	return nil
}

// takesNext takes the word after a bare --worktree when it is a name.
func (f *worktreeFlag) takesNext(fs *flag.FlagSet) bool {
	if !f.bare || fs.NArg() == 0 || !validWorktreeName(fs.Arg(0)) {
		return false
	}
	f.c.Worktree, f.bare = fs.Arg(0), false
	return true
}

var worktreeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

func validWorktreeName(s string) bool {
	return worktreeName.MatchString(s) && !strings.Contains(s, "..") && !strings.HasSuffix(s, ".lock")
}

// worktree is one session's worktree.
type worktree struct {
	Name, Branch, Path string
	Repo               string // the main repository's top folder
}

// git runs aci's own git call in dir (tools/safegit).
func gitRun(dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := safegit.Output(ctx, dir, nil, nil, args...)
	return strings.TrimSpace(string(out)), err
}

// repoTop is the main repository's top folder for a folder in it or in one
// of its worktrees; a usage error when dir is in no repository.
func repoTop(dir string) (string, error) {
	common, err := gitRun(dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", usageErr("--worktree needs a git repository: %s is not in one (git init, or leave out --worktree)", dir)
	}
	if filepath.Base(common) != ".git" {
		return "", usageErr("--worktree needs a repository with a work tree: %s is in a bare one", dir)
	}
	return filepath.Dir(common), nil
}

// worktreeAt is worktree name of the repository with top folder top.
func worktreeAt(top, name string) worktree {
	return worktree{Name: name, Branch: "aci/" + name, Repo: top,
		Path: filepath.Join(filepath.Dir(top), filepath.Base(top)+".worktrees", name)}
}

// newWorktree makes worktree name (a new one's name when "") of workdir's
// repository, on a new branch from the current commit.
func newWorktree(workdir, name string) (worktree, error) {
	top, err := repoTop(workdir)
	if err != nil {
		return worktree{}, err
	}
	if _, err := gitRun(top, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err != nil {
		return worktree{}, usageErr("--worktree needs a commit to start from: the repository at %s has none yet", top)
	}
	if name == "" {
		var b [3]byte
		rand.Read(b[:])
		name = time.Now().Format("20060102-1504") + "-" + hex.EncodeToString(b[:])
	}
	wt := worktreeAt(top, name)
	if _, err := os.Stat(wt.Path); err == nil {
		return worktree{}, usageErr("the worktree %s exists already: pick another name, or merge or drop it (aci worktree merge|drop %s)", wt.Path, name)
	}
	if _, err := gitRun(top, "rev-parse", "--verify", "--quiet", "refs/heads/"+wt.Branch); err == nil {
		return worktree{}, usageErr("the branch %s exists already: pick another name", wt.Branch)
	}
	if err := os.MkdirAll(filepath.Dir(wt.Path), 0o755); err != nil {
		return worktree{}, fmt.Errorf("make %s: %w", filepath.Dir(wt.Path), err)
	}
	if _, err := gitRun(top, "worktree", "add", "-b", wt.Branch, wt.Path, "HEAD"); err != nil {
		return worktree{}, fmt.Errorf("make the worktree: %w", err)
	}
	// The session works in the same place below the top as the person.
	if rel, err := filepath.Rel(top, workdir); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		if fi, err := os.Stat(filepath.Join(wt.Path, rel)); err == nil && fi.IsDir() {
			wt.Path = filepath.Join(wt.Path, rel)
		}
	}
	return wt, nil
}

// worktreeRoot is the worktree's top folder (wt.Path may be below it).
func (wt worktree) root() string {
	return worktreeAt(wt.Repo, wt.Name).Path
}

// commitAll commits whatever the session left uncommitted in the
// worktree, so the branch holds all of it; false when there was nothing.
func (wt worktree) commitAll() (bool, error) {
	dir := wt.root()
	if _, err := gitRun(dir, "add", "-A"); err != nil {
		return false, err
	}
	if _, err := gitRun(dir, "diff", "--cached", "--quiet"); err == nil {
		return false, nil
	}
	args := []string{"commit", "--no-verify", "-q", "-m", "aci: worktree " + wt.Name}
	if who, _ := gitRun(dir, "config", "user.email"); who == "" {
		args = append([]string{"-c", "user.name=aci", "-c", "user.email=aci@localhost"}, args...)
	}
	if _, err := gitRun(dir, args...); err != nil {
		return false, err
	}
	return true, nil
}

// base is where the worktree's branch left the main repository's HEAD.
func (wt worktree) base() (string, error) {
	head, err := gitRun(wt.Repo, "rev-parse", "HEAD")
	if err != nil {
		return "", err
	}
	return gitRun(wt.Repo, "merge-base", head, "refs/heads/"+wt.Branch)
}

// diff is everything the worktree changed since it left HEAD, as one
// diff (its uncommitted changes committed first).
func (wt worktree) diff(stat bool) (string, error) {
	if _, err := wt.commitAll(); err != nil {
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
	return gitRun(wt.Repo, args...)
}

// merge merges the worktree's branch into the main repository's current
// branch, then removes the worktree and the branch. A conflict is undone
// and reported; the worktree stays.
func (wt worktree) merge() error {
	if _, err := wt.commitAll(); err != nil {
		return err
	}
	args := []string{"merge", "--no-ff", "--no-edit", "-m", "aci: merge worktree " + wt.Name, "refs/heads/" + wt.Branch}
	if who, _ := gitRun(wt.Repo, "config", "user.email"); who == "" {
		args = append([]string{"-c", "user.name=aci", "-c", "user.email=aci@localhost"}, args...)
	}
	if _, err := gitRun(wt.Repo, args...); err != nil {
		gitRun(wt.Repo, "merge", "--abort")
		return fmt.Errorf("%s does not merge cleanly into %s (nothing was changed there; the worktree stays at %s): %w", wt.Branch, wt.Repo, wt.root(), err)
	}
	return wt.drop()
}

// drop removes the worktree and its branch.
func (wt worktree) drop() error {
	if _, err := gitRun(wt.Repo, "worktree", "remove", "--force", wt.root()); err != nil {
		return err
	}
	_, err := gitRun(wt.Repo, "branch", "-D", wt.Branch)
	os.Remove(filepath.Dir(wt.root())) // REPO.worktrees, when it is empty
	return err
}

// findWorktree is worktree ID|NAME of workdir's repository: a background
// session's id names the worktree it ran in.
func findWorktree(workdir, arg string) (worktree, error) {
	if rec, err := findRecord(workdir, arg); err == nil && rec.Worktree != "" {
		arg = rec.Worktree
	}
	if !validWorktreeName(arg) {
		return worktree{}, usageErr("%q is not a worktree name or a background session's id", arg)
	}
	top, err := repoTop(workdir)
	if err != nil {
		return worktree{}, err
	}
	wt := worktreeAt(top, arg)
	if _, err := gitRun(top, "rev-parse", "--verify", "--quiet", "refs/heads/"+wt.Branch); err != nil {
		return worktree{}, usageErr("no worktree %q: no branch %s in %s (aci worktree list)", arg, wt.Branch, top)
	}
	return wt, nil
}

const worktreeUsage = "aci worktree list | diff ID|NAME | merge ID|NAME | drop ID|NAME"

// runWorktreeCmd is `aci worktree list|diff|merge|drop`.
func runWorktreeCmd(args []string, workdir string, stdin *os.File, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage:", worktreeUsage)
		return ui.ExitUsage
	}
	if args[0] == "list" {
		top, err := repoTop(workdir)
		if err != nil {
			fmt.Fprintln(stderr, "aci:", err)
			return exitFor(err)
		}
		out, err := gitRun(top, "for-each-ref", "--format=%(refname:strip=3)", "refs/heads/aci/")
		if err != nil {
			fmt.Fprintln(stderr, "aci:", err)
			return ui.ExitFailed
		}
		for _, name := range strings.Fields(out) {
			fmt.Fprintf(stdout, "%-32s %s\n", name, worktreeAt(top, name).Path)
		}
		return ui.ExitOK
	}
	if len(args) != 2 {
		fmt.Fprintln(stderr, "usage:", worktreeUsage)
		return ui.ExitUsage
	}
	wt, err := findWorktree(workdir, args[1])
	if err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return exitFor(err)
	}
	switch args[0] {
	case "diff":
		d, err := wt.diff(false)
		if err != nil {
			fmt.Fprintln(stderr, "aci:", err)
			return ui.ExitFailed
		}
		fmt.Fprintln(stdout, d)
	case "merge":
		if err := wt.merge(); err != nil {
			fmt.Fprintln(stderr, "aci:", err)
			return ui.ExitFailed
		}
		fmt.Fprintf(stderr, "aci: merged %s into %s; the worktree and its branch are removed\n", wt.Branch, wt.Repo)
	case "drop":
		if err := wt.drop(); err != nil {
			fmt.Fprintln(stderr, "aci:", err)
			return ui.ExitFailed
		}
		fmt.Fprintf(stderr, "aci: dropped the worktree %s and its branch %s\n", wt.root(), wt.Branch)
	default:
		fmt.Fprintln(stderr, "usage:", worktreeUsage)
		return ui.ExitUsage
	}
	return ui.ExitOK
}

// worktreeEnd asks, at the end of an interactive session in a worktree,
// whether to merge, keep or drop what it changed; without a terminal it
// keeps it and says how to decide later.
func worktreeEnd(wt worktree, interactive bool, stdin io.Reader, stderr io.Writer) {
	stat, err := wt.diff(true)
	if err != nil {
		fmt.Fprintln(stderr, "aci: the worktree's changes:", err)
		return
	}
	later := fmt.Sprintf("aci: kept the worktree %s (branch %s): aci worktree diff|merge|drop %s", wt.root(), wt.Branch, wt.Name)
	if strings.TrimSpace(stat) == "" {
		if err := wt.drop(); err == nil {
			fmt.Fprintln(stderr, "aci: the worktree changed nothing: removed it")
		}
		return
	}
	if !interactive {
		fmt.Fprintln(stderr, later)
		return
	}
	fmt.Fprintf(stderr, "The session changed, in %s:\n%s\n", wt.root(), stat)
	in := bufio.NewReader(stdin)
	for {
		fmt.Fprint(stderr, "Merge into "+filepath.Base(wt.Repo)+"? [m]erge, [k]eep for later, [d]rop, [v]iew the diff: ")
		line, err := in.ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "m", "merge":
			if err := wt.merge(); err != nil {
				fmt.Fprintln(stderr, "aci:", err)
			} else {
				fmt.Fprintln(stderr, "aci: merged", wt.Branch)
			}
			return
		case "d", "drop":
			if err := wt.drop(); err != nil {
				fmt.Fprintln(stderr, "aci:", err)
			} else {
				fmt.Fprintln(stderr, "aci: dropped", wt.Branch)
			}
			return
		case "v", "view":
			d, _ := wt.diff(false)
			fmt.Fprintln(stderr, d)
			continue
		case "k", "keep":
			fmt.Fprintln(stderr, later)
			return
		}
		if errors.Is(err, io.EOF) {
			fmt.Fprintln(stderr, later)
			return
		}
	}
}
