//go:build unix

package ui

import (
	"io"
	"os"
	"testing"
	"time"
)

// The terminal's one reader hands keys to the last owner to claim them,
// or to the prompt when no one has; a prompt read ends after Enter, so
// what follows waits for whoever has the keys next.
func TestKeyHubHandsKeysToOneTaker(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	h, err := newKeyHub(int(r.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	defer h.close()
	typ := func(s string) {
		t.Helper()
		if _, err := w.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	settle := func() { time.Sleep(50 * time.Millisecond) } // the reader reads what was written

	typ("hello\rsteer")
	settle()
	buf := make([]byte, 64)
	n, _ := promptReader{h}.Read(buf)
	if got := string(buf[:n]); got != "hello\r" {
		t.Errorf("the prompt read %q", got)
	}
	turn := h.claim(false)
	if b, _ := turn.take(); string(b) != "steer" {
		t.Errorf("the turn took %q", b)
	}
	// A question on top takes the keys; the turn gets none meanwhile.
	typ("ahead")
	settle()
	q := h.claim(true)
	got := make(chan string, 1)
	go func() {
		b, _ := turn.take()
		got <- string(b)
	}()
	typ("y\r")
	if b, _ := q.take(); string(b) != "y\r" {
		t.Errorf("the question took %q", b)
	}
	q.release()
	typ(" more")
	if s := <-got; s != " more" {
		t.Errorf("the turn took %q after the question", s)
	}
	turn.release()
	if _, err := turn.take(); err != errStopped {
		t.Errorf("a released owner's take: %v", err)
	}
	typ("x")
	settle()
	h.close()
	n, _ = promptReader{h}.Read(buf)
	if string(buf[:n]) != "x" {
		t.Errorf("the prompt read %q", buf[:n])
	}
	if _, err := (promptReader{h}).Read(buf); err != io.EOF {
		t.Errorf("after close: %v", err)
	}
}
