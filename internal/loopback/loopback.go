// Package loopback starts the tests' stand-ins for hosts on the network:
// HTTP servers on one of the machine's loopback addresses (127.0.0.2,
// 127.0.0.3, …), which a contained command reaches only through aci's
// proxy.
package loopback

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
)

// Serve serves h over HTTP on a free port of ip until the test ends. The
// test skips where ip cannot be listened on (not every machine routes all
// of 127.0.0.0/8).
func Serve(t testing.TB, ip string, h http.Handler) *httptest.Server {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Skipf("cannot listen on %s here: %v", ip, err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// Echo answers every request with prefix and the request's path, so a
// test sees which request reached it.
func Echo(prefix string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, prefix+r.URL.Path)
	})
}

// Port is the port srv listens on.
func Port(srv *httptest.Server) int {
	return srv.Listener.Addr().(*net.TCPAddr).Port
}

// Asker stands in for the person asked about a host off the allow list
// (a netproxy.Asker through its Ask): it records each question, as
// host:port, and answers as Allow says.
type Asker struct {
	mu    sync.Mutex
	asked []string
	allow bool
}

// Ask records the question and answers it.
func (a *Asker) Ask(_ context.Context, host string, port int) (bool, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, net.JoinHostPort(host, strconv.Itoa(port)))
	if a.allow {
		return true, ""
	}
	return false, "the person said no"
}

// Allow sets the answer to the questions from now on.
func (a *Asker) Allow(yes bool) {
	a.mu.Lock()
	a.allow = yes
	a.mu.Unlock()
}

// Questions are the hosts asked about so far.
func (a *Asker) Questions() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.asked...)
}
