package fakeai

import (
	"net"
)

// NewAt is New listening on addr ("192.0.2.2:0"), for tests that need the
// model on an address that is not loopback: aci treats a loopback server
// as local (free, no key needed).
func NewAt(t TB, addr string, replies ...Reply) *Server {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("fakeai: listen on %s: %v", addr, err)
	}
	return start(t, l, replies)
}

// NonLoopbackIP is an IPv4 address of this machine that is not loopback,
// "" when it has none.
func NonLoopbackIP() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	return ""
}
