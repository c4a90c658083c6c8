//go:build linux

package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/aci-dev/aci/internal/dirs"
)

// A cache's writable layer is kept from one session to the next, so that
// what a session's commands copied up (Go refreshes the time of each
// cache entry it uses, which copies the entry up in full) is not copied
// again by every session. It lives in aci's state folder: commands never
// see it there (the state folder is hidden, and the session's bwrap binds
// it only below the session folder, which commands do not see), and
// nothing outside the sandbox uses it as a cache, so nothing in it runs
// outside the sandbox later. It is kept per workspace and cache: what a
// command of one workspace leaves there is seen by the later commands of
// that workspace only (which can read that workspace anyway), never by
// another workspace's.
//
// An overlay's upper folder must not be mounted twice at once: a session
// holds the layer's lock (flock) while its sandbox lives, and a second
// session of the same workspace meanwhile gets a layer of its own, gone
// with it, as before. A layer over keptLayerMax is started afresh by the
// next session; one no session has used for keptLayerIdle is removed.

const (
	keptLayerMax  = 2 << 30 // bytes of one layer
	keptLayerIdle = 30 * 24 * time.Hour
)

// keptLayer is one cache's kept layer, locked for a session.
type keptLayer struct {
	dir  string   // holds upper and work
	lock *os.File // its flock, held until the session's sandbox is gone
}

func (k *keptLayer) release() {
	if k != nil && k.lock != nil {
		k.lock.Close()
		k.lock = nil
	}
}

// keptLayersBase is the folder of kept layers; "" when there is no state
// folder or it lies where a layer could not be kept (inside the
// workspace or a layered cache, which the overlay would show).
func keptLayersBase(p Policy) string {
	base := dirs.StateFile("layers")
	if base == "" || !filepath.IsAbs(base) {
		return ""
	}
	if err := os.MkdirAll(base, 0o700); err != nil {
		return ""
	}
	base = real(base)
	if underAny(base, p.WritableRoots()) || underAny(base, p.Layered) || strings.ContainsAny(base, ",:\\") {
		return ""
	}
	return base
}

// keptLayerKey names the layer of cache for the workspace.
func keptLayerKey(workspace []string, cache string) string {
	h := sha256.New()
	for _, w := range workspace {
		h.Write([]byte(w + "\x00"))
	}
	h.Write([]byte("\x01" + cache))
	return hex.EncodeToString(h.Sum(nil))[:24]
}

// acquireKeptLayer locks the kept layer of cache, made if new; nil when
// another session holds it or it cannot be kept.
func acquireKeptLayer(base string, workspace []string, cache string) *keptLayer {
	key := keptLayerKey(workspace, cache)
	f, err := os.OpenFile(filepath.Join(base, key+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil || !sameFile(f) {
		f.Close()
		return nil
	}
	now := time.Now()
	os.Chtimes(f.Name(), now, now) // when it was last used (pruneKeptLayers)
	k := &keptLayer{dir: filepath.Join(base, key), lock: f}
	upper := filepath.Join(k.dir, "upper")
	// Over its bound when last measured: started afresh, the old one
	// removed in the background.
	if _, err := os.Lstat(filepath.Join(k.dir, "full")); err == nil {
		old := filepath.Join(base, "old-"+key+"-"+strconv.FormatInt(now.UnixNano(), 36))
		if os.Rename(upper, old) == nil {
			go removeTree(old)
		}
		os.Remove(filepath.Join(k.dir, "full"))
	}
	if os.MkdirAll(upper, 0o700) != nil || os.MkdirAll(filepath.Join(k.dir, "work"), 0o700) != nil {
		k.release()
		return nil
	}
	os.WriteFile(filepath.Join(k.dir, "cache"), []byte(cache+"\n"), 0o600) // for a person looking
	go measureKeptLayer(k.dir)
	return k
}

// measureKeptLayer marks the layer in dir "full" when it holds more than
// keptLayerMax bytes; the next session starts it afresh. It only reads
// (lstat, never following a link a command left).
func measureKeptLayer(dir string) {
	var total int64
	filepath.WalkDir(filepath.Join(dir, "upper"), func(_ string, e fs.DirEntry, err error) error {
		if err != nil || total > keptLayerMax {
			return filepath.SkipDir
		}
		if fi, err := e.Info(); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				total += st.Blocks * 512
			}
		}
		return nil
	})
	if total > keptLayerMax {
		os.WriteFile(filepath.Join(dir, "full"), nil, 0o600)
	}
}

// pruneKeptLayers removes the layers no session used for keptLayerIdle
// (and the leftovers of a removal cut short), each under its lock.
func pruneKeptLayers(base string) {
	ents, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, "old-") {
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Hour {
				removeTree(filepath.Join(base, name))
			}
			continue
		}
		key, ok := strings.CutSuffix(name, ".lock")
		if !ok {
			continue
		}
		fi, err := e.Info()
		if err != nil || time.Since(fi.ModTime()) < keptLayerIdle {
			continue
		}
		f, err := os.OpenFile(filepath.Join(base, name), os.O_RDWR, 0)
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			removeTree(filepath.Join(base, key))
			os.Remove(f.Name())
		}
		f.Close()
	}
}

// sameFile reports whether the lock f is still the file at its path: one
// pruneKeptLayers removed after this process opened it locks nothing.
func sameFile(f *os.File) bool {
	a, err1 := f.Stat()
	b, err2 := os.Lstat(f.Name())
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

func removeTree(d string) {
	makeRemovable(d)
	os.RemoveAll(d)
}
