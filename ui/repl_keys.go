package ui

import (
	"io"
	"sync"
	"time"
)

// One reader of the terminal. A single goroutine reads the keys and hands
// them to whoever has the terminal: the prompt (readline) when no one else
// claimed it, the line typed during a turn, or a question on top of that.
// Two readers of one terminal split the keys between them (a steer
// arriving as "tr" for "steer b", the rest in a hidden draft): here the
// others never read the terminal, they take what the reader handed on.

// keyHub reads the terminal and holds what it read until it is taken.
type keyHub struct {
	src  *keyWaiter
	done chan struct{}

	mu     sync.Mutex
	cond   *sync.Cond
	buf    []byte      // read and not yet taken
	owners []*keyOwner // the last one takes keys; none: the prompt
	err    error       // why reading ended (io.EOF once closed)
}

func newKeyHub(fd int) (*keyHub, error) {
	src, err := newKeyWaiter(fd)
	if err != nil {
		return nil, err
	}
	h := &keyHub{src: src, done: make(chan struct{})}
	h.cond = sync.NewCond(&h.mu)
	go h.run()
	return h, nil
}

func (h *keyHub) run() {
	defer close(h.done)
	buf := make([]byte, 4096)
	for {
		n, err := h.src.read(buf)
		h.mu.Lock()
		h.buf = append(h.buf, termFocus.strip(buf[:n])...) // notify_focus.go
		if err != nil && h.err == nil {
			h.err = io.EOF
		}
		h.cond.Broadcast()
		h.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// close stops reading; every taker then gets io.EOF.
func (h *keyHub) close() {
	h.mu.Lock()
	if h.err == nil {
		h.err = io.EOF
	}
	h.cond.Broadcast()
	h.mu.Unlock()
	h.src.stop()
	select {
	case <-h.done:
		h.src.close()
	case <-time.After(time.Second): // a reader that cannot be woken (not Unix)
	}
}

// keyOwner takes the keys while it is the last to have claimed them.
type keyOwner struct {
	h    *keyHub
	gone bool
}

// claim hands the keys to a new owner until it releases them. fresh
// drops the keys read and not yet taken: they were typed before the
// owner's question was on the screen.
func (h *keyHub) claim(fresh bool) *keyOwner {
	h.mu.Lock()
	defer h.mu.Unlock()
	o := &keyOwner{h: h}
	h.owners = append(h.owners, o)
	if fresh {
		h.buf = nil
	}
	return o
}

// release gives the keys back to the owner before (or the prompt). A
// take waiting for o returns errStopped. It may be called more than once.
func (o *keyOwner) release() {
	h := o.h
	h.mu.Lock()
	defer h.mu.Unlock()
	o.gone = true
	for i, x := range h.owners {
		if x == o {
			h.owners = append(h.owners[:i], h.owners[i+1:]...)
			break
		}
	}
	h.cond.Broadcast()
}

// take waits until o has the keys and some were typed, and returns them.
func (o *keyOwner) take() ([]byte, error) {
	h := o.h
	h.mu.Lock()
	defer h.mu.Unlock()
	for {
		switch {
		case o.gone:
			return nil, errStopped
		case len(h.buf) > 0 && h.owners[len(h.owners)-1] == o:
			b := h.buf
			h.buf = nil
			return b, nil
		case h.err != nil:
			return nil, h.err
		}
		h.cond.Wait()
	}
}

// promptReader is readline's input: the keys while no one else claimed
// them. A read ends after a key that ends readline's line (Enter, Ctrl-C,
// Ctrl-D), so what is typed after it stays here for whoever has the keys
// once readline returns.
type promptReader struct{ h *keyHub }

func (p promptReader) Read(b []byte) (int, error) {
	h := p.h
	h.mu.Lock()
	defer h.mu.Unlock()
	for {
		if len(h.buf) > 0 && len(h.owners) == 0 {
			n := len(h.buf)
			for i, c := range h.buf {
				if c == '\r' || c == '\n' || c == 0x03 || c == 0x04 {
					n = i + 1
					break
				}
			}
			n = copy(b, h.buf[:n])
			h.buf = h.buf[n:]
			if len(h.buf) == 0 {
				h.buf = nil
			}
			return n, nil
		}
		if h.err != nil {
			return 0, h.err
		}
		h.cond.Wait()
	}
}
