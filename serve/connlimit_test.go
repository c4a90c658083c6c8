//go:build unix

package serve

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"
)

// The caps hold, and a full cap makes room by closing the oldest
// connection not answering a request: of the same client when its own cap
// is reached, of anyone when the total is; a connection is refused only
// when all that could make room are busy.
func TestConnLimitCaps(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	l := newConnLimit(ln, 4, 2)
	dial := func(src string) net.Conn {
		t.Helper()
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: time.Second}
		c, err := d.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Skipf("cannot dial from %s: %v", src, err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	accept := func() *limitedConn {
		t.Helper()
		c, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		return c.(*limitedConn)
	}
	closed := func(name string, c net.Conn) {
		t.Helper()
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !isReset(err) {
			t.Errorf("%s was not closed: %v", name, err)
		}
	}
	open := func(name string, c net.Conn) {
		t.Helper()
		c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		var ne net.Error
		if _, err := c.Read(make([]byte, 1)); !errors.As(err, &ne) || !ne.Timeout() {
			t.Errorf("%s was closed: %v", name, err)
		}
	}
	count := func(client string, total, fromClient int) {
		t.Helper()
		if a, b := l.counts(client); a != total || b != fromClient {
			t.Errorf("held %d in all, %d from %s; want %d, %d", a, b, client, total, fromClient)
		}
	}

	a1 := dial("127.0.0.2")
	accept()
	a2 := dial("127.0.0.2")
	sa2 := accept()
	count("127.0.0.2", 2, 2)
	// The client's cap: its oldest idle connection makes room.
	a3 := dial("127.0.0.2")
	sa3 := accept()
	closed("a1", a1)
	open("a2", a2)
	count("127.0.0.2", 2, 2)
	// All of the client's connections busy: the next one is refused.
	l.ConnState(sa2, http.StateActive)
	l.ConnState(sa3, http.StateActive)
	a4 := dial("127.0.0.2")
	b1 := dial("127.0.0.3")
	accept()
	closed("a4", a4)
	open("a2", a2)
	open("a3", a3)
	b2 := dial("127.0.0.3")
	accept()
	count("127.0.0.3", 4, 2)
	// The total: the oldest idle connection of anyone makes room.
	c1 := dial("127.0.0.4")
	sc1 := accept()
	closed("b1", b1)
	open("b2", b2)
	count("127.0.0.4", 4, 1)
	// Idle again between requests: it may make room.
	l.ConnState(sa2, http.StateIdle)
	dial("127.0.0.5")
	accept()
	closed("a2", a2)
	open("a3", a3)
	open("c1", c1)
	// Closed connections are no longer counted.
	sc1.Close()
	l.ConnState(sc1, http.StateClosed)
	count("127.0.0.4", 3, 0)
	// A request on its way in is not closed to make room, however old.
	l.ConnState(sa3, http.StateIdle)
	if _, err := a3.Write([]byte("GET / HTTP/1.1\r\n")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	dial("127.0.0.6")
	accept()
	dial("127.0.0.6")
	accept()
	open("a3", a3)
	closed("b2", b2)
}

func isReset(err error) bool { return errors.Is(err, syscall.ECONNRESET) }

// Thousands of connections that send nothing, from one local process,
// do not starve the server: a real request still answers at once, and the
// server held no more than its cap.
func TestConnFloodDoesNotStarveTheServer(t *testing.T) {
	if testing.Short() {
		t.Skip("opens thousands of connections")
	}
	r := newRig(t, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	addr := ln.Addr().String()

	// Both ends are this process: the server's side is capped, the rest
	// of its file limit is for the flood.
	flood := 3000
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err == nil && int(lim.Cur)-maxConns-256 < flood {
		flood = int(lim.Cur) - maxConns - 256
	}
	if flood < 1000 {
		t.Skipf("the file limit (%d) leaves too little room", lim.Cur)
	}
	start := time.Now()
	conns := make([]net.Conn, 0, flood)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := 0; i < flood; i++ {
		c, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, c)
		if time.Since(start) > 20*time.Second {
			t.Fatalf("%d connections took %v", i, time.Since(start))
		}
	}
	t.Logf("%d half-open connections in %v", flood, time.Since(start))

	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{}}
	req, _ := http.NewRequest("GET", "http://"+addr+"/api/sessions", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	asked := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("a real request during the flood: %v", err)
	}
	resp.Body.Close()
	if took := time.Since(asked); resp.StatusCode != 200 || took > time.Second {
		t.Fatalf("a real request during the flood: %d after %v", resp.StatusCode, took)
	}

	// The server let go of all but its cap: the others read as closed.
	deadline := time.Now().Add(5 * time.Second)
	open := 0
	for _, c := range conns {
		c.SetReadDeadline(deadline)
	}
	for _, c := range conns {
		if time.Now().After(deadline) {
			break
		}
		c.SetReadDeadline(time.Now().Add(time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				open++
			}
		}
	}
	if open > maxConns {
		t.Errorf("%d connections still held, cap %d", open, maxConns)
	}
	t.Logf("%d of %d still held", open, flood)
}
