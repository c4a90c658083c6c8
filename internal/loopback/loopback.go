// Package loopback starts the tests' stand-ins for hosts on the network:
// HTTP servers on one of the machine's loopback addresses (127.0.0.2,
// 127.0.0.3, …), which a contained command reaches only through aci's
// proxy.
package loopback

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
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
