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

// cookieName carries the token for the web page: GET /?token=TOKEN sets it.
const cookieName = "aci_token"

// NewToken is 32 random bytes in hex: the token of a server started
// without ACI_SERVE_TOKEN.
func NewToken() string {
	var b [32]byte
	rand.Read(b[:]) // never fails (crypto/rand panics instead)
	return hex.EncodeToString(b[:])
}

// tokenOK says whether r carries the token, in the Authorization header
// or the cookie. The comparison takes the same time wherever a guess
// differs.
func (s *Server) tokenOK(r *http.Request) bool {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, tok, ok := strings.Cut(h, " ")
		return ok && strings.EqualFold(scheme, "Bearer") && s.sameToken(strings.TrimSpace(tok))
	}
	if c, err := r.Cookie(cookieName); err == nil {
		return s.sameToken(c.Value)
	}
	return false
}

func (s *Server) sameToken(got string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1
}

// setCookie gives the browser the token, where the page's script cannot
// read it and no other site's request carries it.
func (s *Server) setCookie(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: s.token, Path: "/",
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
	})
}

// hostOK says whether the request names this server: its Host must be
// the address the connection came in on (or localhost with that port,
// on a loopback address). A page of another site whose name was pointed
// at 127.0.0.1 (DNS rebinding) sends its own name and is refused.
func hostOK(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	lhost, lport, err := net.SplitHostPort(local.String())
	if err != nil {
		return false
	}
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil && !strings.Contains(r.Host, ":") {
		host, port, err = r.Host, "80", nil // no port: the default one
	}
	if err != nil || port != lport {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		ip := net.ParseIP(lhost)
		return ip != nil && ip.IsLoopback()
	}
	hip, lip := net.ParseIP(host), net.ParseIP(lhost)
	return hip != nil && lip != nil && hip.Equal(lip)
}

// originOK says whether a request's Origin, when it has one, is the
// server's own: a script of another site may send requests, and must
// not be able to act with the person's cookie.
func originOK(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || u.Scheme != "http" || u.Path != "" || u.User != nil {
		return false
	}
	return strings.EqualFold(u.Host, r.Host)
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
