package gitscan

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aci-dev/aci/tools/secrets"
)

// Writes into the object store other than a commit: git add (the blobs it
// stages), git stash (the worktree's changes, and with -u/-a its
// untracked and ignored files) and the plumbing that stores named files
// or texts (hash-object -w, update-index --add, apply --cached, tag and
// notes messages). What they store stays in the repository's objects,
// where a push of the right ref, a bundle or a copy of the folder carries
// it along, even once the file is unstaged or the stash dropped.

// checkAdd looks at what git add stages: an ignored file it force-adds,
// and secret values in the files it takes, as the command will have
// written them.
func checkAdd(ctx context.Context, op Op, m *matcher) (*Finding, error) {
	if !op.Force && m.empty() {
		return nil, nil
	}
	r := openRepo(ctx, op.Dir)
	if r == nil {
		return nil, nil
	}
	worktree := map[string]bool{}
	if f, err := r.addedFiles(op, worktree); f != nil || err != nil {
		if f != nil {
			f.Op = "add"
		}
		return f, err
	}
	if m.empty() {
		return nil, nil
	}
	if f := r.scanPending(covered(op), worktree, m, "add"); f != nil {
		return f, nil
	}
	return r.scanWorktree(worktree, m, "add")
}

// covered are the pending files op's pathspecs take.
func covered(op Op) []Pending {
	var out []Pending
	for _, p := range op.Pending {
		if op.All || coveredBy(p.Path, op.Dir, op.Paths) {
			out = append(out, p)
		}
	}
	return out
}

// coveredBy reports whether path is one of specs (relative to dir), lies
// in one, or matches one as a pattern.
func coveredBy(path, dir string, specs []string) bool {
	for _, s := range specs {
		s = strings.TrimPrefix(s, ":/")
		abs := s
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(dir, s)
		}
		if ok, _ := filepath.Match(abs, path); ok || path == abs || strings.HasPrefix(path, abs+"/") {
			return true
		}
	}
	return false
}

// checkStash looks at what git stash stores: the staged and worktree
// changes of tracked files, with -u the untracked files, with -a the
// ignored ones too (any ignored file is reported: it is what git was told
// to keep out), and the stash message.
func checkStash(ctx context.Context, op Op, m *matcher) (*Finding, error) {
	r := openRepo(ctx, op.Dir)
	if r == nil {
		return nil, nil
	}
	paths := op.Paths
	if len(paths) == 0 {
		paths = []string{":/"}
	}
	if op.Ignored {
		ign, err := r.namesIn(op.Dir, append([]string{"ls-files", "-z", "-o", "-i", "--exclude-standard", "--full-name", "--"}, paths...)...)
		if err != nil {
			return nil, err
		}
		if len(ign) > 0 {
			return &Finding{Op: "stash", File: mostSensitive(ign)}, nil
		}
	}
	if m.empty() {
		return nil, nil
	}
	for _, msg := range op.Messages {
		if label := m.find([]byte(msg)); label != "" {
			return &Finding{Op: "stash", File: "the stash message", Secret: label}, nil
		}
	}
	worktree := map[string]bool{}
	args := []string{"ls-files", "-z", "-m", "--full-name"}
	if op.Untracked {
		args = append(args, "-o", "--exclude-standard")
	}
	list, err := r.namesIn(op.Dir, append(append(args, "--"), paths...)...)
	if err != nil {
		return nil, err
	}
	for _, n := range list {
		worktree[n] = true
	}
	staged, blobs, err := r.staged()
	if err != nil {
		return nil, err
	}
	// A stash stores the index and the worktree both: the staged blob is
	// read even when the file changed again since.
	objs, names := blobs, staged
	if f, err := r.scanObjects(objs, names, "stash", m); f != nil || err != nil {
		return f, err
	}
	// Files the command writes first: a new one is taken with -u, a
	// tracked one always.
	pend := Op{Dir: op.Dir, Paths: op.Paths, All: len(op.Paths) == 0, Pending: op.Pending}
	var taken []Pending
	for _, p := range covered(pend) {
		rel, err := filepath.Rel(r.root, p.Path)
		if err == nil && (op.Untracked || worktree[filepath.ToSlash(rel)] || r.tracked(rel)) {
			taken = append(taken, p)
		}
	}
	if f := r.scanPending(taken, worktree, m, "stash"); f != nil {
		return f, nil
	}
	return r.scanWorktree(worktree, m, "stash")
}

// mostSensitive picks the ignored file to name: a secret file (the one
// table, secrets.SecretFile) when there is one.
func mostSensitive(names []string) string {
	for _, n := range names {
		b := filepath.Base(n)
		if secrets.SecretFile(b) != secrets.NotSecret || strings.Contains(strings.ToLower(b), "secret") {
			return n
		}
	}
	return names[0]
}

// checkStore looks at the plumbing that stores named files or texts:
// their content (as the command will have written it), ignored files
// among them, and the messages.
func checkStore(ctx context.Context, op Op, m *matcher) (*Finding, error) {
	r := openRepo(ctx, op.Dir)
	if r == nil {
		return nil, nil
	}
	if op.Force {
		sub := &repo{ctx: r.ctx, root: op.Dir}
		if f, err := sub.ignored(op.Paths, "update-index"); f != nil || err != nil {
			return f, err
		}
	}
	if m.empty() {
		return nil, nil
	}
	for _, msg := range op.Messages {
		if label := m.find([]byte(msg)); label != "" {
			return &Finding{Op: "store", File: "a message", Secret: label}, nil
		}
	}
	worktree := map[string]bool{}
	for _, p := range op.Paths {
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(op.Dir, p)
		}
		if rel, err := filepath.Rel(r.root, abs); err == nil && !strings.HasPrefix(rel, "..") {
			worktree[filepath.ToSlash(rel)] = true
			continue
		}
		// A file outside the repository (a patch in /tmp): read it as is.
		if fi, err := os.Stat(abs); err == nil && fi.Mode().IsRegular() && fi.Size() <= maxBlob {
			if b, err := os.ReadFile(abs); err == nil {
				if label := m.find(b); label != "" {
					return &Finding{Op: "store", File: p, Secret: label}, nil
				}
			}
		}
	}
	if f := r.scanPending(covered(Op{Dir: op.Dir, Paths: op.Paths, Pending: op.Pending}), worktree, m, "store"); f != nil {
		return f, nil
	}
	return r.scanWorktree(worktree, m, "store")
}

// tracked reports whether rel (from the top) is a tracked file.
func (r *repo) tracked(rel string) bool {
	list, err := r.names("ls-files", "-z", "--full-name", "--", ":/"+filepath.ToSlash(rel))
	return err == nil && len(list) > 0
}

// CheckStaged looks at what is staged in dir's repository now: a file git
// ignores, or a secret value in a staged file. It is for after a command
// that changed the index in a way no check saw before it ran (a script
// that runs git add): nil when nothing is found or dir is not in a
// repository.
func CheckStaged(ctx context.Context, dir string, secrets []Secret) (*Finding, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r := openRepo(ctx, dir)
	if r == nil {
		return nil, nil
	}
	staged, blobs, err := r.staged()
	if err != nil || len(staged) == 0 {
		return nil, err
	}
	if f, err := r.ignored(staged, "add"); f != nil || err != nil {
		return f, err
	}
	m := newMatcher(secrets)
	if m.empty() {
		return nil, nil
	}
	return r.scanObjects(blobs, staged, "add", m)
}

// IndexStamp is when dir's repository's index last changed, to tell
// whether a command changed it; zero outside a repository.
func IndexStamp(dir string) time.Time {
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(filepath.Join(d, ".git", "index"))
		if err == nil {
			return fi.ModTime()
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil || filepath.Dir(d) == d {
			return time.Time{} // a worktree's .git file, or no repository: not followed
		}
	}
}
