package serve

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// NewToken is 32 random bytes in hex: the token of a server started
// without ACI_SERVE_TOKEN.
func NewToken() string {
	var b [32]byte
	rand.Read(b[:]) // never fails (crypto/rand panics instead)
	return hex.EncodeToString(b[:])
}

// tokenOK says whether r carries the token in its Authorization header,
// the only place it travels: a cookie would go to every port of the host
// (any other local server the person opens), so one opens nothing. The
// comparison takes the same time wherever a guess differs.
func (s *Server) tokenOK(r *http.Request) bool {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return ok && strings.EqualFold(scheme, "Bearer") && s.sameToken(strings.TrimSpace(tok))
}

func (s *Server) sameToken(got string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1
}

// hostOK says whether the request names this server: its Host must be
// the address the connection came in on (or, on a loopback address,
// localhost or another loopback address, with that port). A page of
// another site whose name was pointed at 127.0.0.1 (DNS rebinding) sends
// its own name and is refused.
func hostOK(r *http.Request) bool { return namesServer(r, r.Host) }

// namesServer says whether hostport (a Host header, or an Origin's host)
// is this server as the connection reached it: the same port, and the
// address it came in on, or localhost or a loopback address when that
// address is loopback — so the page works opened as
// http://localhost:PORT/ or http://127.0.0.1:PORT/, whichever aci printed.
func namesServer(r *http.Request, hostport string) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	lhost, lport, err := net.SplitHostPort(local.String())
	if err != nil {
		return false
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil && !strings.Contains(hostport, ":") {
		host, port, err = hostport, "80", nil // no port: the default one
	}
	if err != nil || port != lport {
		return false
	}
	lip := net.ParseIP(lhost)
	if lip == nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return lip.IsLoopback()
	}
	hip := net.ParseIP(host)
	return hip != nil && (hip.Equal(lip) || hip.IsLoopback() && lip.IsLoopback())
}

// originOK says whether a request's Origin, when it has one, is the
// server's own (as hostOK judges a Host): a script of another site may
// send requests, and gets 403 before anything else is looked at.
func originOK(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || u.Scheme != "http" || u.Path != "" || u.User != nil || u.Host == "" {
		return false
	}
	return namesServer(r, u.Host)
}

// IsLoopback says whether addr (HOST:PORT) listens on loopback only;
// anything else is reachable by other machines, and aci warns.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// noToken is text for a log or an answer with the server's token taken
// out: a page that put it in a request's path by mistake does not leave
// it there.
func (s *Server) noToken(text string) string {
	if len(s.token) < 8 {
		return text
	}
	text = strings.ReplaceAll(text, s.token, "[token]")
	if esc := url.PathEscape(s.token); esc != s.token {
		text = strings.ReplaceAll(text, esc, "[token]")
	}
	return text
}
