package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/aci-dev/aci/tools/secrets"
)

// The workspace's secret files (docs/protocol.md §2, Containment) are kept back
// from contained commands: under bwrap each one present at any depth of
// the workspace (dependency folders aside, as for the protected names) is
// covered, for each command, by an empty read-only file of the session's
// own. A command reads nothing from it, whatever the route: a glob, a
// script in any language, a copy then a commit. The person can let one
// command read a file (Grant.Read); that command then sees the real one.
// Matching command text (the guard's reader rules) cannot be the wall: a
// shell has too many ways to name and encode a file.

// keptDir is the folder of the session's empty stand-ins for kept-back
// secret files, one per file, so that an open of one tells which file the
// command wanted (WatchKept).
const keptDir = "kept"

// IsSecretFile reports whether path names a file aci keeps back from
// contained commands: the one definition, secrets.IsSecretFile.
func IsSecretFile(path string) bool { return secrets.IsSecretFile(path) }

// noteSecret records p in the index when it is named like a secret file
// (protect_index.go calls it for every entry it reads).
func (x *protectIndex) noteSecret(p string, d fs.DirEntry) {
	if d.IsDir() {
		return
	}
	if secrets.SecretFile(d.Name()) == secrets.NotSecret {
		return
	}
	if x.secrets == nil {
		x.secrets = map[string]bool{}
	}
	x.secrets[p] = true
}

// pruneSecrets forgets the secret files that are gone (look calls it).
func (x *protectIndex) pruneSecrets() {
	for p := range x.secrets {
		if _, err := os.Lstat(p); err != nil {
			delete(x.secrets, p)
		}
	}
}

// secretPaths are the secret files the index knows, sorted.
func (x *protectIndex) secretPaths() []string { return x.sorted(&x.secrets) }

// sorted are the paths in one of the index's sets, sorted.
func (x *protectIndex) sorted(set *map[string]bool) []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make([]string, 0, len(*set))
	for p := range *set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// keptSource is the empty stand-in for the secret file path in the
// session folder tmp; "" when tmp is "".
func keptSource(tmp, path string) string {
	if tmp == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(tmp, keptDir, hex.EncodeToString(sum[:8]))
}

// keptFor lists the secret files to keep back from the command about to
// start (those present now, but the ones in read, which the person
// allowed it to read), making their stand-ins. The index must be fresh
// (protectedPresent looks first).
func (s *Sandbox) keptFor(read []string) []string {
	x := s.indexed()
	if x == nil || s.tmpDir == "" {
		return nil
	}
	var allowed []string
	for _, r := range read {
		if filepath.IsAbs(r) {
			allowed = append(allowed, filepath.Clean(r), real(r))
		}
	}
	var out []string
	for _, p := range x.secretPaths() {
		if slices.Contains(allowed, p) || slices.Contains(allowed, real(p)) {
			continue
		}
		// Only a file that is there now: bwrap would make a missing
		// mount point in the real workspace.
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if !secrets.IsSecretFile(p) { // a registry's file without a token
			continue
		}
		src := keptSource(s.tmpDir, p)
		if _, err := os.Lstat(src); err != nil && !makeKept(src) {
			continue
		}
		s.noteKept(p, fi)
		s.side.kept.name(src, p)
		out = append(out, p)
	}
	return out
}

// makeKept makes the empty stand-in src under another name, then renames
// it into place: opening src itself to create it would count, for the
// watch (WatchKept), as the command about to start reading the secret.
func makeKept(src string) bool {
	if os.MkdirAll(filepath.Dir(src), 0o700) != nil {
		return false
	}
	f, err := os.CreateTemp(filepath.Dir(src), ".new-")
	if err != nil {
		return false
	}
	f.Close()
	if os.Chmod(f.Name(), 0o444) != nil || os.Rename(f.Name(), src) != nil {
		os.Remove(f.Name())
		return false
	}
	return true
}

// KeptBack lists the secret files present in the workspace that a
// contained command started now would not read (paths as found, sorted):
// for the file windows and the person's views. Empty when commands are
// not contained by bwrap.
func (s *Sandbox) KeptBack() []string {
	if s.Kind() != Bwrap {
		return nil
	}
	x := s.indexed()
	if x == nil || s.privateTmp() == "" {
		return nil
	}
	s.wantLook()
	s.protectedPresent(nil) // a fresh look; what it finds made is moved away as a command's look does
	var out []string
	for _, p := range x.secretPaths() {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && IsSecretFile(p) {
			out = append(out, p)
		}
	}
	return out
}

// name notes that stand-in src stands in for the secret file p.
func (k *keptState) name(src, p string) {
	k.namesMu.Lock()
	defer k.namesMu.Unlock()
	if k.names == nil {
		k.names = map[string]string{}
	}
	k.names[src] = p
}

// nameOf is the secret file stand-in src stands in for, if any.
func (k *keptState) nameOf(src string) (string, bool) {
	k.namesMu.Lock()
	defer k.namesMu.Unlock()
	p, ok := k.names[src]
	return p, ok
}
