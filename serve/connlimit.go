package serve

import (
	"container/list"
	"net"
	"net/http"
	"sync"
)

// Connections the server holds at once: in all, and from one client
// address. Every local process is the same client (127.0.0.1), so one
// that opens thousands of connections and sends nothing must not shut
// out the page: when a cap is reached, the oldest connection that is not
// answering a request (it has sent no complete request yet, or waits
// idle between two) is closed to make room; a new connection is refused
// only when every one counted is busy. A connection whose request is
// waiting to be read is busy too: it may be the page's, just accepted
// among thousands of others. Half-open connections that stay under the
// caps are closed by the header timeout.
const (
	maxConns          = 1024
	maxConnsPerClient = 512
)

// connLimit is a net.Listener that keeps at most total connections, and
// perClient from one address; its ConnState, given to the http.Server,
// tells it which connections are answering a request.
type connLimit struct {
	net.Listener
	total, perClient int

	mu       sync.Mutex
	order    *list.List // of *limitedConn, oldest first
	byClient map[string]int
}

func newConnLimit(ln net.Listener, total, perClient int) *connLimit {
	return &connLimit{Listener: ln, total: total, perClient: perClient, order: list.New(), byClient: map[string]int{}}
}

// limitedConn is one connection the limit counts.
type limitedConn struct {
	net.Conn
	l      *connLimit
	client string
	elem   *list.Element // nil once no longer counted
	busy   bool          // answering a request (or hijacked)
}

func (c *limitedConn) Close() error {
	c.l.forget(c)
	return c.Conn.Close()
}

// Accept returns the next connection the caps allow, making room by
// closing the oldest idle one where needed.
func (l *connLimit) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if lc := l.admit(c); lc != nil {
			return lc, nil
		}
	}
}

// admit counts c, or closes it when no room can be made.
func (l *connLimit) admit(c net.Conn) *limitedConn {
	client := c.RemoteAddr().String()
	if host, _, err := net.SplitHostPort(client); err == nil {
		client = host
	}
	l.mu.Lock()
	var victims []*limitedConn
	if l.byClient[client] >= l.perClient {
		if v := l.oldestIdle(client); v != nil {
			l.forgetLocked(v)
			victims = append(victims, v)
		}
	}
	if l.order.Len() >= l.total {
		if v := l.oldestIdle(""); v != nil {
			l.forgetLocked(v)
			victims = append(victims, v)
		}
	}
	var lc *limitedConn
	if l.byClient[client] < l.perClient && l.order.Len() < l.total {
		lc = &limitedConn{Conn: c, l: l, client: client}
		lc.elem = l.order.PushBack(lc)
		l.byClient[client]++
	}
	l.mu.Unlock()
	for _, v := range victims {
		v.Conn.Close()
	}
	if lc == nil {
		c.Close()
	}
	return lc
}

// oldestIdle is the oldest counted connection not answering a request
// and with none waiting to be read, of client ("" any).
func (l *connLimit) oldestIdle(client string) *limitedConn {
	for e := l.order.Front(); e != nil; e = e.Next() {
		c := e.Value.(*limitedConn)
		if !c.busy && (client == "" || c.client == client) && !waiting(c.Conn) {
			return c
		}
	}
	return nil
}

func (l *connLimit) forget(c *limitedConn) {
	l.mu.Lock()
	l.forgetLocked(c)
	l.mu.Unlock()
}

func (l *connLimit) forgetLocked(c *limitedConn) {
	if c.elem == nil {
		return
	}
	l.order.Remove(c.elem)
	c.elem = nil
	if l.byClient[c.client]--; l.byClient[c.client] <= 0 {
		delete(l.byClient, c.client)
	}
}

// ConnState follows the http.Server's view of each connection: busy
// while it answers a request, idle before its first one and between two.
func (l *connLimit) ConnState(c net.Conn, state http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	switch state {
	case http.StateActive, http.StateHijacked:
		l.mu.Lock()
		lc.busy = true
		l.mu.Unlock()
	case http.StateIdle, http.StateNew:
		l.mu.Lock()
		lc.busy = false
		l.mu.Unlock()
	case http.StateClosed:
		l.forget(lc)
	}
}

// counts is how many connections are held, in all and from client.
func (l *connLimit) counts(client string) (total, fromClient int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.order.Len(), l.byClient[client]
}
