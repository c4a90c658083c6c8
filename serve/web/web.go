// Package web holds the page of aci serve: plain HTML, CSS and JavaScript
// modules embedded in the binary, served as they are (no build step, nothing
// fetched from elsewhere).
//
// Handler serves the page at "/" and its files at "/assets/NAME"; the server
// mounts it for GET on "/" and keeps the API under "/api/". The page talks
// only to its own origin, with fetch: the API and the event stream, the
// token in the Authorization header (read from the address's #token=
// fragment and kept in the origin's storage; no cookie carries it).
package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"
)

//go:embed static
var static embed.FS

// Policy is the Content-Security-Policy of every file served: scripts and
// styles only from the page's own files (no inline script, so markup that
// slipped into model text could not run), requests only to its own origin,
// no images from elsewhere, no framing.
const Policy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

type file struct {
	data  []byte
	etag  string
	ctype string
}

// files maps a request path to its file, built from the embedded tree on
// the first request: every aci run links the page, few serve it.
var files = sync.OnceValue(load)

func load() map[string]file {
	out := map[string]file{}
	err := fs.WalkDir(static, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := static.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		url := strings.TrimPrefix(p, "static")
		if url == "/index.html" {
			url = "/"
		}
		out[url] = file{data: data, etag: `"` + hex.EncodeToString(sum[:8]) + `"`, ctype: contentType(p)}
		return nil
	})
	if err != nil {
		// The tree is compiled in: failing to read it is a broken build.
		panic(fmt.Sprintf("web: reading the embedded page: %v", err))
	}
	return out
}

// contentType is explicit for the few kinds the page has: a module script
// must come as JavaScript, whatever the system's MIME tables say.
func contentType(name string) string {
	switch path.Ext(name) {
	case ".html":
		return "text/html; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	}
	return "application/octet-stream"
}

// Handler serves the page: "/" is index.html, "/assets/NAME" its files;
// any other path is 404 and any method but GET and HEAD 405.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			writeError(w, http.StatusMethodNotAllowed, "method not allowed")
			return
		}
		f, ok := files()[r.URL.Path]
		if !ok {
			writeError(w, http.StatusNotFound, "not found")
			return
		}
		h.Set("Content-Type", f.ctype)
		h.Set("Content-Security-Policy", Policy)
		h.Set("X-Content-Type-Options", "nosniff")
		// Nothing of the address is sent on as a Referer.
		h.Set("Referrer-Policy", "no-referrer")
		// Revalidate every time: a new binary brings new files under the same names.
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", f.etag)
		if match := r.Header.Get("If-None-Match"); match != "" && match == f.etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.Set("Content-Length", fmt.Sprint(len(f.data)))
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(f.data)
		}
	})
}

// writeError answers as the API does: {"error": "one line"}.
func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	fmt.Fprintf(w, "{\"error\": %q}\n", msg)
}
