package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// The binary's `aci serve` serves the web page: the printed address holds
// the token in its fragment only, the page and its files load without it
// and set no cookie, and a cookie opens nothing of the API.
func TestServeServesThePage(t *testing.T) {
	s := startServe(t, t.TempDir(), fakeai.New(t), nil, "--addr", "127.0.0.1:0")
	get := func(path string, header ...string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", s.base+path, nil)
		for _, h := range header {
			k, v, _ := strings.Cut(h, ": ")
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res, string(body)
	}
	res, body := get("/")
	if res.StatusCode != 200 || !strings.Contains(body, `<script type="module" src="assets/app.js">`) {
		t.Fatalf("GET /: %d\n%s", res.StatusCode, body)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("the page came without its Content-Security-Policy: %q", csp)
	}
	for _, f := range []string{"/", "/assets/app.js", "/assets/auth.js", "/assets/md.js", "/assets/style.css"} {
		res, body := get(f)
		if res.StatusCode != 200 || len(body) < 100 {
			t.Errorf("GET %s without the token: %d, %d bytes", f, res.StatusCode, len(body))
		}
		if c := res.Header.Values("Set-Cookie"); len(c) != 0 {
			t.Errorf("GET %s set a cookie: %v", f, c)
		}
	}
	// A cookie alone opens nothing; the header does.
	if res, body := get("/api/sessions", "Cookie: aci_token="+s.token); res.StatusCode != http.StatusUnauthorized || !strings.Contains(body, `"error"`) {
		t.Errorf("GET /api/sessions with only the cookie: %d %s", res.StatusCode, body)
	}
	if res, _ := get("/api/sessions", "Authorization: Bearer "+s.token); res.StatusCode != 200 {
		t.Errorf("GET /api/sessions with the header: %d", res.StatusCode)
	}
}
