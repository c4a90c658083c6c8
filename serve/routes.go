package serve

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"strings"
	"time"
)

//go:embed openapi.json
var openapiDoc []byte

// route is one endpoint of docs/protocol.md §7. The table is the mux's whole
// content, and a test checks it against openapi.json both ways.
type route struct {
	method, pattern string
	handler         http.HandlerFunc
}

func (s *Server) routes() []route {
	return []route{
		{"GET", "/{$}", s.page},
		{"GET", "/api/openapi.json", s.openapi},
		{"GET", "/api/models", s.models},
		{"GET", "/api/commands", s.commands},
		{"GET", "/api/sessions", s.list},
		{"POST", "/api/sessions", s.create},
		{"GET", "/api/sessions/{id}", s.get},
		{"GET", "/api/sessions/{id}/diff", s.diff},
		{"GET", "/api/sessions/{id}/export", s.export},
		{"DELETE", "/api/sessions/{id}", s.remove},
		{"POST", "/api/sessions/{id}/messages", s.message},
		{"POST", "/api/sessions/{id}/cancel", s.cancelTurn},
		{"GET", "/api/sessions/{id}/events", s.events},
		{"POST", "/api/sessions/{id}/approvals/{request_id}", s.approve},
		{"GET", "/api/sessions/{id}/windows/{window_id}", s.window},
		{"POST", "/api/sessions/{id}/fork", s.fork},
		{"POST", "/api/sessions/{id}/rewind", s.rewind},
		{"POST", "/api/sessions/{id}/mode", s.setMode},
		{"POST", "/api/sessions/{id}/compact", s.compact},
		{"POST", "/api/sessions/{id}/model", s.setModel},
		{"POST", "/api/sessions/{id}/effort", s.setEffort},
		{"POST", "/api/sessions/{id}/plan/accept", s.acceptPlan},
		{"GET", "/api/trust", s.trustInfo},
		{"POST", "/api/trust", s.trust},
	}
}

// register puts the routes in the mux, with a JSON answer for a known
// path asked with another method (405) and for any unknown path (404).
func (s *Server) register(mux *http.ServeMux) {
	allowed := map[string][]string{}
	var order []string
	for _, rt := range s.routes() {
		mux.HandleFunc(rt.method+" "+rt.pattern, rt.handler)
		if allowed[rt.pattern] == nil {
			order = append(order, rt.pattern)
		}
		allowed[rt.pattern] = append(allowed[rt.pattern], rt.method)
	}
	for _, p := range order {
		methods := strings.Join(allowed[p], ", ")
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", methods)
			s.fail(w, http.StatusMethodNotAllowed, "%s %s: use %s", r.Method, r.URL.Path, methods)
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.Page != nil && !strings.HasPrefix(r.URL.Path, "/api/") && (r.Method == "GET" || r.Method == "HEAD") {
			s.cfg.Page.ServeHTTP(w, r) // the page's assets
			return
		}
		s.fail(w, http.StatusNotFound, "no such endpoint: %s %s (GET /api/openapi.json lists them)", r.Method, r.URL.Path)
	})
}

// guard checks every request before it reaches a route: the Host and
// Origin first (403), a path the mux would clean (404, in JSON rather than
// its HTML redirect), then the token (401) for everything under /api/. The
// page's files hold no data and need no token. No CORS header is ever
// set: other sites' scripts get nothing.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			// The path only: nothing of a query string reaches the log.
			s.log.Printf("%s %s %d %s", r.Method, s.noToken(r.URL.Path), sw.status(), time.Since(start).Round(time.Millisecond))
		}()
		h := sw.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		switch {
		case !hostOK(r):
			s.fail(sw, http.StatusForbidden, "the Host %s is not this server's address", quoteShort(r.Host))
			return
		case !originOK(r):
			s.fail(sw, http.StatusForbidden, "requests from %s are not accepted: only the server's own page may call it", quoteShort(r.Header.Get("Origin")))
			return
		case !cleanPath(r.URL.Path):
			s.fail(sw, http.StatusNotFound, "no such endpoint: %s (a path has no empty, . or .. parts; GET /api/openapi.json lists them)", quoteShort(r.URL.Path))
			return
		}
		if !isAPI(r.URL.Path) {
			next.ServeHTTP(sw, r) // the page and its files, or a JSON 404
			return
		}
		if !s.tokenOK(r) {
			// An unauthenticated client keeps no connection open.
			h.Set("Connection", "close")
			s.fail(sw, http.StatusUnauthorized, "missing or wrong token: send Authorization: Bearer TOKEN, the token in the address aci serve printed (http://HOST:PORT/#token=TOKEN)")
			return
		}
		h.Set(instanceHeader, s.instance)
		next.ServeHTTP(sw, r)
	})
}

// instanceHeader names this run of the server on every API answer: the
// page tells a restarted server (same token, turns ended) from a dropped
// connection by it.
const instanceHeader = "X-Aci-Instance"

// isAPI says whether path is under /api/, where the token is required.
func isAPI(path string) bool { return path == "/api" || strings.HasPrefix(path, "/api/") }

// cleanPath says whether path is as the mux would route it; otherwise the
// mux answers with an HTML redirect to the cleaned path.
func cleanPath(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	c := path.Clean(p)
	return c == p || c+"/" == p
}

// statusWriter remembers the status for the log; Unwrap lets
// http.ResponseController reach Flush and the write deadline.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}

// writeJSON answers with v, secrets removed.
func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, "encode the answer: %v", err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write([]byte(s.cfg.Redact(string(data))))
	w.Write([]byte("\n"))
}

// fail answers {"error": "one line"}.
func (s *Server) fail(w http.ResponseWriter, status int, format string, args ...any) {
	msg := oneLine(s.noToken(s.cfg.Redact(fmt.Sprintf(format, args...))))
	data, _ := json.Marshal(map[string]string{"error": msg})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(data, '\n'))
}

func (s *Server) openapi(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(openapiDoc)
}

// page serves GET /: the web page, or a few lines pointing at the API
// when the server was given none.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Page != nil {
		s.cfg.Page.ServeHTTP(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'")
	w.Write([]byte(placeholderPage))
}

const placeholderPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>aci serve</title></head>
<body><h1>aci serve</h1>
<p>This server runs aci sessions over HTTP. The API is described at
<code>/api/openapi.json</code> (send the token: <code>Authorization: Bearer TOKEN</code>).</p>
</body></html>
`
