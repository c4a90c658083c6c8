package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/aci-dev/aci/tools/worktree"
	"github.com/aci-dev/aci/ui"
)

// Worktrees (docs/protocol.md §11): --worktree [NAME] runs a session in a new
// git worktree on the branch aci/NAME, at REPO.worktrees/NAME beside the
// repository's folder: outside the workspace's tree, so the workspace's
// own commands (a search, a build) never see it. What it changed is one
// diff the person merges or drops; nothing is merged unasked.

// worktreeFlag is --worktree, --worktree=NAME or --worktree NAME (the next
// word, when it is a name).
func worktreeFlag(c *config) *valueFlag {
	return &valueFlag{on: &c.WorktreeSet, value: &c.Worktree,
		check: func(v string) error {
			if !worktree.ValidName(v) {
				return fmt.Errorf("--worktree: %q is not a worktree name (letters, digits, '.', '_', '-'; at most 64)", v)
			}
			return nil
		},
		next: worktree.ValidName,
	}
}

// findWorktree is worktree ID|NAME of workdir's repository: a background
// session's id names the worktree it ran in.
func findWorktree(workdir, arg string) (worktree.Worktree, error) {
	if rec, err := findRecord(workdir, arg); err == nil && rec.Worktree != "" {
		arg = rec.Worktree
	}
	if !worktree.ValidName(arg) {
		return worktree.Worktree{}, usageErr("%q is not a worktree name or a background session's id (aci worktree list)", arg)
	}
	top, err := worktree.RepoTop(workdir)
	if err != nil {
		return worktree.Worktree{}, err
	}
	return worktree.Find(top, arg)
}

const worktreeUsage = "aci worktree list | diff ID|NAME | merge ID|NAME | drop ID|NAME"

// runWorktreeCmd is `aci worktree list|diff|merge|drop`.
func runWorktreeCmd(args []string, workdir string, stdin *os.File, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage:", worktreeUsage)
		return ui.ExitUsage
	}
	if args[0] == "list" {
		top, err := worktree.RepoTop(workdir)
		if err != nil {
			fmt.Fprintln(stderr, "aci:", err)
			return exitFor(err)
		}
		names, err := worktree.List(top)
		if err != nil {
			fmt.Fprintln(stderr, "aci:", err)
			return ui.ExitFailed
		}
		for _, name := range names {
			fmt.Fprintf(stdout, "%-32s %s\n", name, worktree.At(top, name).Path)
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
		d, err := wt.Diff(false)
		if err != nil {
			fmt.Fprintln(stderr, "aci:", err)
			return ui.ExitFailed
		}
		fmt.Fprintln(stdout, d)
	case "merge":
		if err := wt.Merge(); err != nil {
			fmt.Fprintln(stderr, "aci:", err)
			return ui.ExitFailed
		}
		fmt.Fprintf(stderr, "aci: merged %s into %s; the worktree and its branch are removed\n", wt.Branch, wt.Repo)
	case "drop":
		if err := wt.Drop(); err != nil {
			fmt.Fprintln(stderr, "aci:", err)
			return ui.ExitFailed
		}
		fmt.Fprintf(stderr, "aci: dropped the worktree %s and its branch %s\n", wt.Root(), wt.Branch)
	default:
		fmt.Fprintln(stderr, "usage:", worktreeUsage)
		return ui.ExitUsage
	}
	return ui.ExitOK
}

// sayDone says what was done, or the error that stopped it.
func sayDone(stderr io.Writer, err error, done string) {
	if err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return
	}
	fmt.Fprintln(stderr, "aci:", done)
}

// worktreeEnd asks, at the end of an interactive session in a worktree,
// whether to merge, keep or drop what it changed; without a terminal it
// keeps it and says how to decide later.
func worktreeEnd(wt worktree.Worktree, interactive bool, stdin io.Reader, stderr io.Writer) {
	stat, err := wt.Diff(true)
	if err != nil {
		fmt.Fprintln(stderr, "aci: the worktree's changes:", err)
		return
	}
	later := fmt.Sprintf("aci: kept the worktree %s (branch %s): aci worktree diff|merge|drop %s", wt.Root(), wt.Branch, wt.Name)
	if strings.TrimSpace(stat) == "" {
		if err := wt.Drop(); err == nil {
			fmt.Fprintln(stderr, "aci: the worktree changed nothing: removed it")
		}
		return
	}
	if !interactive {
		fmt.Fprintln(stderr, later)
		return
	}
	fmt.Fprintf(stderr, "The session changed, in %s:\n%s\n", wt.Root(), stat)
	in := bufio.NewReader(stdin)
	for {
		fmt.Fprint(stderr, "Merge into "+filepath.Base(wt.Repo)+"? [m]erge, [k]eep for later, [d]rop, [v]iew the diff: ")
		line, err := in.ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "m", "merge":
			sayDone(stderr, wt.Merge(), "merged "+wt.Branch)
			return
		case "d", "drop":
			sayDone(stderr, wt.Drop(), "dropped "+wt.Branch)
			return
		case "v", "view":
			d, _ := wt.Diff(false)
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
