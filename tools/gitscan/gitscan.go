// Package gitscan looks at what a git command is about to record or
// publish, before it runs: the content a commit records (staged files,
// files added in the same command, -a changes), what git add, git stash
// and the other writes into the object store put there (store.go), and
// what a push sends (the commits no remote has yet), for secret values,
// and for files git ignores being force-added or stashed. It reads the
// repository with git itself and changes nothing.
package gitscan

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/aci-dev/aci/tools/safegit"
)

// Op is one git add, commit or push of a command, in order (the guard's
// GitPublish, without the dependency).
type Op struct {
	Kind  string // "add", "commit", "push", "stash" or "store"
	Dir   string // where git runs
	All   bool   // commit -a, add -A
	Force bool   // add -f
	// stash -u takes the untracked files, stash -a the ignored ones too.
	Untracked, Ignored bool
	Paths              []string
	Messages           []string // commit -m
	Remote             string
	Refs               []string
	// Pending are files the command writes before this op runs: their
	// content as written, or the file they are copied from.
	Pending []Pending
}

// Pending is a file a command writes before it commits.
type Pending struct {
	Path    string // absolute
	Content string
	From    string // absolute source of a copy
}

// Secret is a value that must not be published; Label says what it is
// without showing it ("the API key", ".env: DB_PASSWORD").
type Secret struct {
	Label string
	Value string
}

// Finding is the first problem found. It names the file and the kind of
// secret, never the value.
type Finding struct {
	Op     string // the git command: "commit", "push", "add", "stash", ...
	File   string // path in the repository, or "commit message"
	Secret string // the secret's label; "" for an ignored file
}

// Reason is the finding as a question's reason.
func (f *Finding) Reason() string {
	switch {
	case f.Op == "commit" || f.Op == "push":
		if f.Secret == "" {
			return fmt.Sprintf("git %s would publish %s, a file git ignores (force-added)", f.Op, f.File)
		}
		return fmt.Sprintf("git %s would publish a secret value in %s (%s)", f.Op, f.File, f.Secret)
	}
	git := "git " + f.Op
	if f.Op == "store" {
		git = "git"
	}
	if f.Secret == "" {
		return fmt.Sprintf("%s would store %s, a file git ignores, in the repository's objects", git, f.File)
	}
	return fmt.Sprintf("%s would store a secret value in the repository's objects, in %s (%s)", git, f.File, f.Secret)
}

const (
	// maxBlob: larger files (images, archives, datasets) are not scanned;
	// a credential lives in text well under this.
	maxBlob = 4 << 20
	// maxTotal bounds the bytes read for one check.
	maxTotal = 256 << 20
	timeout  = 20 * time.Second
)

// Check looks at what ops would publish. It returns nil when nothing is
// found, when there is no secret to look for and no add -f, or when the
// folder is not a git repository. An error means the check could not be
// made (git missing, a timeout).
func Check(ctx context.Context, ops []Op, secrets []Secret) (*Finding, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	m := newMatcher(secrets)
	var adds []Op
	for _, op := range ops {
		var f *Finding
		var err error
		switch op.Kind {
		case "add":
			adds = append(adds, op)
			f, err = checkAdd(ctx, op, m)
		case "stash":
			f, err = checkStash(ctx, op, m)
		case "store":
			f, err = checkStore(ctx, op, m)
		case "commit":
			f, err = checkCommit(ctx, op, adds, m)
		case "push":
			f, err = checkPush(ctx, op, m)
		}
		if f != nil || err != nil {
			return f, err
		}
	}
	return nil, nil
}

// repo is a repository being read: its top folder.
type repo struct {
	ctx  context.Context
	root string
	read int64 // bytes read so far
}

// openRepo finds the repository of dir; nil when dir is not in one.
func openRepo(ctx context.Context, dir string) *repo {
	r := &repo{ctx: ctx, root: dir}
	out, err := r.git(nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil
	}
	r.root = strings.TrimSpace(string(out))
	return r
}

// git runs git in the repository through safegit: nothing the
// repository configures (fsmonitor, hooks, pagers, filters) runs.
func (r *repo) git(stdin []byte, args ...string) ([]byte, error) {
	return safegit.Output(r.ctx, r.root, nil, stdin, args...)
}

// names runs git and splits its NUL-separated output.
func (r *repo) names(args ...string) ([]string, error) {
	out, err := r.git(nil, args...)
	if err != nil {
		return nil, err
	}
	var list []string
	for _, n := range bytes.Split(out, []byte{0}) {
		if len(n) > 0 {
			list = append(list, string(n))
		}
	}
	return list, nil
}

// checkCommit looks at what a commit records: the staged files, the files
// that git add earlier in the command stages, and -a's or the pathspecs'
// tracked changes.
func checkCommit(ctx context.Context, op Op, adds []Op, m *matcher) (*Finding, error) {
	r := openRepo(ctx, op.Dir)
	if r == nil {
		return nil, nil
	}
	for _, msg := range op.Messages {
		if label := m.find([]byte(msg)); label != "" {
			return &Finding{Op: "commit", File: "the commit message", Secret: label}, nil
		}
	}
	staged, blobs, err := r.staged()
	if err != nil {
		return nil, err
	}
	// Files newly staged that git ignores were force-added.
	if f, err := r.ignored(staged, "commit"); f != nil || err != nil {
		return f, err
	}
	worktree := map[string]bool{}
	for _, a := range adds {
		if f, err := r.addedFiles(a, worktree); f != nil || err != nil {
			return f, err
		}
	}
	if op.All || len(op.Paths) > 0 {
		args := []string{"ls-files", "-z", "-m", "--full-name", "--"}
		list, err := r.namesIn(op.Dir, append(args, op.Paths...)...)
		if err != nil {
			return nil, err
		}
		for _, n := range list {
			worktree[n] = true
		}
	}
	if m.empty() {
		return nil, nil
	}
	if f := r.scanPending(op.Pending, worktree, m, "commit"); f != nil {
		return f, nil
	}
	if f, err := r.scanIndex(staged, blobs, worktree, m); f != nil || err != nil {
		return f, err
	}
	return r.scanWorktree(worktree, m, "commit")
}

// scanPending scans what the command writes into the repository before it
// commits, as it will be: the literal content, or the copy's source. Those
// files are then not read from the worktree, which holds the old content.
func (r *repo) scanPending(files []Pending, worktree map[string]bool, m *matcher, op string) *Finding {
	for _, p := range files {
		rel, err := filepath.Rel(r.root, p.Path)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		worktree[filepath.ToSlash(rel)] = false
		data := []byte(p.Content)
		if p.From != "" {
			fi, err := os.Stat(p.From)
			if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxBlob {
				continue
			}
			if data, err = os.ReadFile(p.From); err != nil {
				continue
			}
		}
		if label := m.find(data); label != "" {
			return &Finding{Op: op, File: filepath.ToSlash(rel), Secret: label}
		}
	}
	return nil
}

// namesIn is names run from dir (pathspecs are relative to it).
func (r *repo) namesIn(dir string, args ...string) ([]string, error) {
	sub := &repo{ctx: r.ctx, root: dir}
	if dir == "" {
		sub.root = r.root
	}
	return sub.names(args...)
}

// addedFiles records in worktree what git add op stages, and reports an
// ignored file it force-adds.
func (r *repo) addedFiles(op Op, worktree map[string]bool) (*Finding, error) {
	paths := op.Paths
	if len(paths) == 0 && !op.All {
		return nil, nil
	}
	if len(paths) == 0 {
		paths = []string{":/"}
	}
	if op.Force {
		ign, err := r.namesIn(op.Dir, append([]string{"ls-files", "-z", "-o", "-i", "--exclude-standard", "--full-name", "--"}, paths...)...)
		if err != nil {
			return nil, err
		}
		if len(ign) > 0 {
			return &Finding{Op: "commit", File: ign[0]}, nil
		}
		// Files the command has not written yet: git's rules by name.
		sub := &repo{ctx: r.ctx, root: op.Dir}
		if op.Dir == "" {
			sub.root = r.root
		}
		if f, err := sub.ignored(op.Paths, "commit"); f != nil || err != nil {
			return f, err
		}
	}
	list, err := r.namesIn(op.Dir, append([]string{"ls-files", "-z", "-m", "-o", "--exclude-standard", "--full-name", "--"}, paths...)...)
	if err != nil {
		return nil, err
	}
	for _, n := range list {
		worktree[n] = true
	}
	return nil, nil
}

// ignored reports the first of paths that git's ignore rules match.
func (r *repo) ignored(paths []string, op string) (*Finding, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	in := []byte(strings.Join(paths, "\x00") + "\x00")
	out, err := r.git(in, "check-ignore", "--no-index", "-z", "--stdin")
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		return nil, nil // none ignored
	}
	if err != nil {
		return nil, err
	}
	if first, _, _ := bytes.Cut(out, []byte{0}); len(first) > 0 {
		return &Finding{Op: op, File: string(first)}, nil
	}
	return nil, nil
}

// staged lists the files the index changes against HEAD (added, copied,
// modified, type changed) and their staged blobs.
func (r *repo) staged() (paths, blobs []string, err error) {
	out, err := r.git(nil, "diff", "--cached", "--raw", "-z", "--no-renames", "--no-abbrev", "--diff-filter=ACMT")
	if err != nil {
		return nil, nil, err
	}
	// Records: ":old new oldsha newsha status\0path\0".
	f := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(f); i += 2 {
		meta := strings.Fields(string(f[i]))
		if len(meta) < 5 {
			break
		}
		paths, blobs = append(paths, string(f[i+1])), append(blobs, meta[3])
	}
	return paths, blobs, nil
}

// scanIndex scans the staged blobs of paths (those not also taken from
// the worktree), each distinct blob once.
func (r *repo) scanIndex(paths, blobs []string, worktree map[string]bool, m *matcher) (*Finding, error) {
	var objs, names []string
	seen := map[string]bool{}
	for i, p := range paths {
		if worktree[p] || seen[blobs[i]] {
			continue
		}
		seen[blobs[i]] = true
		objs, names = append(objs, blobs[i]), append(names, p)
	}
	return r.scanObjects(objs, names, "commit", m)
}

// scanWorktree scans files as they are on disk.
func (r *repo) scanWorktree(files map[string]bool, m *matcher, op string) (*Finding, error) {
	for name, read := range files {
		if !read {
			continue // pending: judged as it will be
		}
		p := filepath.Join(r.root, name)
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxBlob {
			continue
		}
		if r.read += fi.Size(); r.read > maxTotal {
			return nil, nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if label := m.find(data); label != "" {
			return &Finding{Op: op, File: name, Secret: label}, nil
		}
	}
	return nil, nil
}

// scanObjects reads objects (any names git cat-file takes) in one git
// process and scans blobs and commits; names label them in findings
// (the path of a blob, "" for a commit's message).
func (r *repo) scanObjects(objs, names []string, op string, m *matcher) (*Finding, error) {
	if len(objs) == 0 {
		return nil, nil
	}
	label := func(i int) string {
		if i < len(names) && names[i] != "" {
			return strings.TrimPrefix(names[i], ":")
		}
		return strings.TrimPrefix(objs[i], ":")
	}
	cmd := safegit.Command(r.ctx, r.root, nil, "cat-file", "--batch")
	cmd.Stdin = strings.NewReader(strings.Join(objs, "\n") + "\n")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	br := bufio.NewReaderSize(out, 64<<10)
	buf := make([]byte, 0, 64<<10)
	for i := range objs {
		head, err := br.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("git cat-file: %w", err)
		}
		var sha, typ string
		var size int64
		if n, _ := fmt.Sscanf(head, "%s %s %d", &sha, &typ, &size); n < 3 {
			continue // "<name> missing"
		}
		skip := typ != "blob" && typ != "commit" || size > maxBlob || r.read+size > maxTotal
		if skip {
			if _, err := br.Discard(int(size) + 1); err != nil {
				return nil, err
			}
			continue
		}
		r.read += size
		if cap(buf) < int(size)+1 {
			buf = make([]byte, int(size)+1)
		}
		buf = buf[:size+1]
		if _, err := io.ReadFull(br, buf); err != nil {
			return nil, err
		}
		if found := m.find(buf[:size]); found != "" {
			file := label(i)
			if typ == "commit" {
				file = "the message of commit " + sha[:min(len(sha), 12)]
			}
			return &Finding{Op: op, File: file, Secret: found}, nil
		}
	}
	return nil, nil
}

// checkPush looks at the commits a push sends that no remote-tracking
// branch holds yet: their messages, files, and files git ignores.
func checkPush(ctx context.Context, op Op, m *matcher) (*Finding, error) {
	r := openRepo(ctx, op.Dir)
	if r == nil {
		return nil, nil
	}
	var srcs []string
	for _, ref := range op.Refs {
		src, _, _ := strings.Cut(strings.TrimPrefix(ref, "+"), ":")
		if src != "" && !strings.HasPrefix(src, "-") {
			srcs = append(srcs, src)
		}
	}
	if len(srcs) == 0 {
		srcs = []string{"HEAD"}
	}
	out, err := r.git(nil, append(append([]string{"rev-list", "--objects"}, srcs...), "--not", "--remotes")...)
	if err != nil {
		return nil, nil // nothing to push, or no commit yet: git push will say
	}
	var objs, names, paths []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		sha, path, _ := strings.Cut(line, " ")
		if sha == "" {
			continue
		}
		objs, names = append(objs, sha), append(names, path)
		if path != "" {
			paths = append(paths, path)
		}
	}
	if f, err := r.ignored(uniq(paths), "push"); f != nil || err != nil {
		return f, err
	}
	if m.empty() {
		return nil, nil
	}
	return r.scanObjects(objs, names, "push", m)
}

func uniq(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
