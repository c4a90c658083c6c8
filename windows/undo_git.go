package windows

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aci-dev/aci/tools/safegit"
	"github.com/aci-dev/aci/tools/textfile"
)

// CommandJournal is a Journal that also hears before a command runs: what
// a command changes cannot be known in advance, so the journal snapshots
// the whole workspace instead.
type CommandJournal interface {
	BeforeCommand(dir string)
}

// gitTimeout bounds each git call of a snapshot.
const gitTimeout = 20 * time.Second

// worktreeSnapshot is a git workspace at one moment: a tree object holding
// every file git does not ignore, tracked or not, written through a copy
// of the index so that neither the index nor the work tree is touched.
type worktreeSnapshot struct {
	root string // the work tree's top folder
	tree string // the tree object's id
}

// git runs one call of a snapshot through safegit: the repository's
// hooks, fsmonitor and filters run none of their programs on the machine.
func git(dir string, env []string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	return safegit.Output(ctx, dir, env, nil, args...)
}

// snapshotWorktree records dir's work tree; ok is false outside a git
// work tree or when git fails (then commands' changes are not undone).
func snapshotWorktree(dir string) (worktreeSnapshot, bool) {
	top, err := git(dir, nil, "rev-parse", "--show-toplevel", "--absolute-git-dir")
	if err != nil {
		return worktreeSnapshot{}, false
	}
	lines := strings.Split(strings.TrimSpace(string(top)), "\n")
	if len(lines) != 2 {
		return worktreeSnapshot{}, false
	}
	root, gitDir := lines[0], lines[1]
	idx, err := os.CreateTemp("", "aci-undo-index-*")
	if err != nil {
		return worktreeSnapshot{}, false
	}
	defer os.Remove(idx.Name())
	// Starting from the real index lets git skip unchanged files by stat.
	// The copy keeps the index's own time: git re-reads a file written in
	// the same second as the index it trusts ("racily clean"), which a
	// copy made now would hide (a command rewriting a file at the same
	// size right after a commit would go unseen).
	realIndex := filepath.Join(gitDir, "index")
	if data, err := os.ReadFile(realIndex); err == nil {
		idx.Write(data)
	}
	idx.Close()
	if fi, err := os.Stat(realIndex); err == nil {
		os.Chtimes(idx.Name(), fi.ModTime(), fi.ModTime())
	}
	env := []string{"GIT_INDEX_FILE=" + idx.Name()}
	if _, err := git(root, env, "add", "-A", "--", "."); err != nil {
		return worktreeSnapshot{}, false
	}
	tree, err := git(root, env, "write-tree")
	if err != nil {
		return worktreeSnapshot{}, false
	}
	return worktreeSnapshot{root: root, tree: strings.TrimSpace(string(tree))}, true
}

// treeChange is a file that differs between two snapshots.
type treeChange struct {
	path   string // absolute
	rel    string
	before string // blob id, "" when the file did not exist
	mode   fs.FileMode
	after  string // blob id, "" when the file was removed
}

// changesBetween lists the files that differ between two snapshots.
func changesBetween(a, b worktreeSnapshot) ([]treeChange, error) {
	out, err := git(a.root, nil, "diff-tree", "-r", "-z", "--no-renames", a.tree, b.tree)
	if err != nil {
		return nil, err
	}
	// Each entry: ":oldmode newmode oldsha newsha status\0path\0".
	var changes []treeChange
	fields := strings.Split(string(out), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(fields[i], ":"))
		if len(meta) != 5 {
			continue
		}
		c := treeChange{rel: fields[i+1], path: filepath.Join(a.root, fields[i+1]), before: meta[2], after: meta[3], mode: 0o644}
		if meta[0] == "100755" {
			c.mode = 0o755
		}
		if strings.Trim(c.before, "0") == "" {
			c.before = ""
		}
		if strings.Trim(c.after, "0") == "" {
			c.after = ""
		}
		if meta[0] == "120000" || meta[1] == "120000" || meta[0] == "160000" || meta[1] == "160000" {
			continue // links and submodules are left alone
		}
		changes = append(changes, c)
	}
	return changes, nil
}

func blob(root, id string) ([]byte, error) { return git(root, nil, "cat-file", "blob", id) }

// undoCommandChanges puts back what commands changed in one turn, skipping
// the files already handled; a file changed since the turn ended (content
// or identity) is left alone and reported, and one whose folder became a
// link is refused and named.
func undoCommandChanges(t *turnChanges, handled map[string]bool, wrote map[string]textfile.Ident, res *UndoResult) {
	before, after := t.tree, t.treeAfter
	changes, err := changesBetween(before, after)
	if err != nil {
		res.Failed = append(res.Failed, "the commands' changes: "+err.Error())
		return
	}
	for _, c := range changes {
		if handled[c.path] {
			continue
		}
		at := place{anchor: t.treeAt, real: c.path}
		slot, err := at.open(c.before != "")
		if err != nil && c.before == "" && errors.Is(err, fs.ErrNotExist) {
			continue // made by the turn, gone with its folder since
		}
		if err != nil {
			res.Failed = append(res.Failed, fmt.Sprintf("%s: %v", c.path, err))
			continue
		}
		now := snapshotOf(slot)
		ok := now.exists == (c.after != "")
		if ok && c.after != "" {
			want, berr := blob(after.root, c.after)
			ok = berr == nil && bytes.Equal(now.data, want) && now.mode < 1<<31 &&
				(now.ident == t.treeIdents[c.path] || now.ident == wrote[c.path])
		}
		if !ok {
			slot.Close()
			res.Refused = append(res.Refused, c.path)
			continue
		}
		if c.before == "" {
			err := (fileSnapshot{}).restore(slot, c.path, wrote)
			slot.Close()
			if err != nil {
				res.Failed = append(res.Failed, fmt.Sprintf("%s: %v", c.path, err))
				continue
			}
			res.Removed = append(res.Removed, c.path)
			continue
		}
		data, err := blob(before.root, c.before)
		if err == nil {
			err = (fileSnapshot{exists: true, data: data, mode: c.mode}).restore(slot, c.path, wrote)
		}
		slot.Close()
		if err != nil {
			res.Failed = append(res.Failed, fmt.Sprintf("%s: %v", c.path, err))
			continue
		}
		res.Restored = append(res.Restored, c.path)
	}
}
