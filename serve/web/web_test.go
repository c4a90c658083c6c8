package web_test

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aci-dev/aci/serve/web"
)

func get(t *testing.T, h http.Handler, method, path string, hdr map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func TestHandler(t *testing.T) {
	h := web.Handler()
	tests := []struct {
		method, path string
		code         int
		ctype        string
		body         string // a piece of the body
	}{
		{"GET", "/", 200, "text/html; charset=utf-8", `<script type="module" src="assets/app.js">`},
		{"HEAD", "/", 200, "text/html; charset=utf-8", ""},
		{"GET", "/assets/app.js", 200, "text/javascript; charset=utf-8", "EventStream"},
		{"GET", "/assets/md.js", 200, "text/javascript; charset=utf-8", "renderMarkdown"},
		{"GET", "/assets/style.css", 200, "text/css; charset=utf-8", "prefers-color-scheme"},
		{"GET", "/assets/icon.svg", 200, "image/svg+xml", "<svg"},
		{"GET", "/index.html", 404, "application/json", `"error"`},
		{"GET", "/assets/", 404, "application/json", `"error"`},
		{"GET", "/assets/../web.go", 404, "application/json", `"error"`},
		{"GET", "/web.go", 404, "application/json", `"error"`},
		{"GET", "/static/index.html", 404, "application/json", `"error"`},
		{"POST", "/", 405, "application/json", `"error"`},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			res := get(t, h, tt.method, tt.path, nil)
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != tt.code {
				t.Fatalf("status %d, want %d (%s)", res.StatusCode, tt.code, body)
			}
			if got := res.Header.Get("Content-Type"); got != tt.ctype {
				t.Errorf("Content-Type %q, want %q", got, tt.ctype)
			}
			if !strings.Contains(string(body), tt.body) {
				t.Errorf("body lacks %q", tt.body)
			}
			if tt.method == "HEAD" && len(body) != 0 {
				t.Errorf("HEAD answered %d bytes of body", len(body))
			}
			if res.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Error("no X-Content-Type-Options: nosniff")
			}
			if tt.code == 200 {
				if got := res.Header.Get("Content-Security-Policy"); got != web.Policy {
					t.Errorf("Content-Security-Policy %q", got)
				}
				if got := res.Header.Get("Referrer-Policy"); got != "no-referrer" {
					t.Errorf("Referrer-Policy %q: the address's token could leave as a Referer", got)
				}
			}
		})
	}
}

func TestHandlerRevalidates(t *testing.T) {
	h := web.Handler()
	res := get(t, h, "GET", "/assets/app.js", nil)
	etag := res.Header.Get("ETag")
	if etag == "" || res.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("ETag %q, Cache-Control %q", etag, res.Header.Get("Cache-Control"))
	}
	if res := get(t, h, "GET", "/assets/app.js", map[string]string{"If-None-Match": etag}); res.StatusCode != http.StatusNotModified {
		t.Errorf("same ETag: status %d, want 304", res.StatusCode)
	}
	if res := get(t, h, "GET", "/assets/app.js", map[string]string{"If-None-Match": `"other"`}); res.StatusCode != http.StatusOK {
		t.Errorf("other ETag: status %d, want 200", res.StatusCode)
	}
}

// staticFiles reads the page's files from the source tree.
func staticFiles(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	root := os.DirFS("static")
	err := fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(root, p)
		out[filepath.ToSlash(p)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Every file the page names is served, and every module it imports exists.
func TestReferencesResolve(t *testing.T) {
	files := staticFiles(t)
	h := web.Handler()
	ref := regexp.MustCompile(`(?:src|href)="([^"#]+)"`)
	for _, m := range ref.FindAllStringSubmatch(files["index.html"], -1) {
		if res := get(t, h, "GET", "/"+m[1], nil); res.StatusCode != 200 {
			t.Errorf("index.html names %s: status %d", m[1], res.StatusCode)
		}
	}
	imp := regexp.MustCompile(`from '\./([^']+)'`)
	for name, src := range files {
		for _, m := range imp.FindAllStringSubmatch(src, -1) {
			if _, ok := files["assets/"+m[1]]; !ok {
				t.Errorf("%s imports %s, which does not exist", name, m[1])
			}
		}
	}
}

// The page's own code never turns a string into markup or code, and names no
// other origin: the guarantees behind "no script from model text runs" and
// "no request leaves the server's origin" that do not depend on the data.
func TestNoMarkupFromStrings(t *testing.T) {
	banned := []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
		"createContextualFragment", "DOMParser", "srcdoc", "setAttribute('on", `setAttribute("on`, "javascript:"}
	url := regexp.MustCompile(`(?i)(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}`)
	for name, src := range staticFiles(t) {
		for _, b := range banned {
			if strings.Contains(src, b) {
				t.Errorf("%s uses %s", name, b)
			}
		}
		for _, u := range url.FindAllString(src, -1) {
			if u != "http://www.w3.org" { // the SVG namespace, a name and not a request
				t.Errorf("%s names another origin: %s", name, u)
			}
		}
	}
	if strings.Contains(staticFiles(t)["index.html"], "<script>") {
		t.Error("index.html has an inline script, which the Content-Security-Policy refuses")
	}
}
