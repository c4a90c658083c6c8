package fswatch

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func newWatcher(t *testing.T, m Mask, max int) *Watcher {
	t.Helper()
	w, err := New(m, max)
	if err != nil {
		t.Skipf("no inotify here: %v", err)
	}
	t.Cleanup(w.Close)
	return w
}

// read collects the events queued.
func read(w *Watcher) ([]Event, bool) {
	var evs []Event
	lost := w.Read(func(e Event) { evs = append(evs, e) })
	return evs, lost
}

// A watched folder's entries made, removed and renamed are heard of; a
// folder moved away takes its watches along, so that what is made in it
// afterwards is not taken for a change at its old path.
func TestEntries(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755)
	w := newWatcher(t, Entries, 10)
	for _, d := range []string{dir, filepath.Join(dir, "a"), filepath.Join(dir, "a", "b")} {
		if err := w.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "a", "f"), nil, 0o644)
	os.Rename(filepath.Join(dir, "a"), filepath.Join(dir, "z"))
	os.WriteFile(filepath.Join(dir, "z", "b", "late"), nil, 0o644)
	evs, lost := read(w)
	if lost {
		t.Fatal("lost")
	}
	want := []Event{
		{Path: filepath.Join(dir, "a", "f"), Made: true},
		{Path: filepath.Join(dir, "a"), Dir: true, Gone: true},
		{Path: filepath.Join(dir, "z"), Dir: true, Made: true},
	}
	if len(evs) != len(want) {
		t.Fatalf("events %+v, want %+v", evs, want)
	}
	for i := range want {
		if evs[i] != want[i] {
			t.Errorf("event %d: %+v, want %+v", i, evs[i], want[i])
		}
	}
	if w.Watched(filepath.Join(dir, "a", "b")) || w.Len() != 1 {
		t.Errorf("the moved folders are still watched (%d)", w.Len())
	}
}

// Past its bound, Add says there is no room.
func TestFull(t *testing.T) {
	dir := t.TempDir()
	w := newWatcher(t, Entries, 1)
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "x"), 0o755)
	if err := w.Add(filepath.Join(dir, "x")); !errors.Is(err, ErrFull) {
		t.Errorf("Add past the bound: %v", err)
	}
	if err := w.Add(dir); err != nil {
		t.Errorf("Add again: %v", err)
	}
}

// More events than the kernel's queue holds: Read says some were lost.
func TestOverflow(t *testing.T) {
	limit := QueueLimit()
	if limit > 200000 {
		t.Skipf("the kernel queues %d events: too many to overflow in a test", limit)
	}
	dir := t.TempDir()
	w := newWatcher(t, Entries, 10)
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	for i := range limit + 10 {
		f, err := os.Create(filepath.Join(dir, strconv.Itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if _, lost := read(w); !lost {
		t.Error("no loss said")
	}
	if _, lost := read(w); lost {
		t.Error("the loss said twice")
	}
}
