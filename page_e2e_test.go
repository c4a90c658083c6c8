package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// The binary's `aci serve` serves the web page: the printed address sets
// the cookie and lands on the page, whose files then load with the cookie.
func TestServeServesThePage(t *testing.T) {
	s := startServe(t, t.TempDir(), fakeai.New(t), nil, "--addr", "127.0.0.1:0")
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Jar: jar}
	get := func(path string) (*http.Response, string) {
		t.Helper()
		res, err := client.Get(s.base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res, string(body)
	}
	res, body := get("/?token=" + s.token)
	if res.StatusCode != 200 || !strings.Contains(body, `<script type="module" src="assets/app.js">`) {
		t.Fatalf("GET /?token=: %d\n%s", res.StatusCode, body)
	}
	if res.Request.URL.RawQuery != "" {
		t.Errorf("the page's address kept its query: %s", res.Request.URL)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("the page came without its Content-Security-Policy: %q", csp)
	}
	for _, f := range []string{"/assets/app.js", "/assets/md.js", "/assets/style.css"} {
		if res, body := get(f); res.StatusCode != 200 || len(body) < 100 {
			t.Errorf("GET %s: %d, %d bytes", f, res.StatusCode, len(body))
		}
	}
	// Without the cookie the files are refused, as the API is.
	res, err = http.Get(s.base + "/assets/app.js")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /assets/app.js without the token: %d, want 401", res.StatusCode)
	}
}
