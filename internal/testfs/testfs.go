// Package testfs writes the trees of files tests work on.
package testfs

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// Write writes files (path below root: contents) with mode perm, making
// the folders on the way.
func Write(t testing.TB, root string, perm os.FileMode, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), perm); err != nil {
			t.Fatal(err)
		}
	}
}

// File writes text to path (mode 0644), making the folders on the way.
func File(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// FileMode writes text to path with mode perm, making missing folders on
// the way private (0700), as a person's config folder is.
func FileMode(t testing.TB, path, text string, perm os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), perm); err != nil {
		t.Fatal(err)
	}
}

// Churn runs change(0), change(1), … in the background, a file or link
// changing under the test's feet, until the stop it returns is called;
// stop waits for the last change to end.
func Churn(change func(i int)) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !done.Load(); i++ {
			change(i)
		}
	}()
	return func() {
		done.Store(true)
		wg.Wait()
	}
}

// Flip points link at in and at out in turn, replacing it atomically,
// until the stop it returns is called: a folder swapped for a link to
// elsewhere while the test writes through it.
func Flip(link, in, out string) (stop func()) {
	return Churn(func(i int) {
		target := in
		if i%2 == 1 {
			target = out
		}
		tmp := link + ".flip"
		os.Remove(tmp)
		if os.Symlink(target, tmp) == nil {
			os.Rename(tmp, link)
		}
	})
}
