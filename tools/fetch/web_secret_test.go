package fetch

import (
	"context"
	"encoding/base64"
	"github.com/aci-dev/aci/tools/secrets"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

func TestInternalAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"10.1.2.3": true, "172.16.0.1": true, "192.168.1.1": true, "169.254.169.254": true, "0.0.0.0": true,
		"100.64.0.1": true, "100.100.100.200": true, "100.127.255.255": true, // carrier NAT (Alibaba metadata)
		"fc00::1": true, "fe80::1": true, "::": true,
		"::ffff:10.0.0.1": true, "::ffff:169.254.169.254": true, // IPv4-mapped
		"::10.0.0.1": true, "::169.254.169.254": true, "::7f00:1": true, // IPv4-compatible
		"64:ff9b::a9fe:a9fe": true, "64:ff9b::10.1.1.1": true, "64:ff9b::127.0.0.1": true, "64:ff9b::100.64.0.1": true,
		"64:ff9b:1::8.8.8.8": true, "2002:a00:1::1": true, "2002:7f00:1::": true,
		// Public and loopback stay free.
		"8.8.8.8": false, "100.63.255.255": false, "100.128.0.0": false, "127.0.0.1": false, "::1": false,
		"64:ff9b::8.8.8.8": false, "::ffff:8.8.8.8": false, "2606:4700::1111": false, "2002:808:808::1": false,
		"::8.8.8.8": false,
	} {
		if got := InternalAddr(netip.MustParseAddr(addr)); got != want {
			t.Errorf("InternalAddr(%s) = %v, want %v", addr, got, want)
		}
	}
}

func TestSecretInURL(t *testing.T) {
	const key = "sk-url-test-0123456789abcdef"
	const dotenv = "db-pass-from-dotenv-42"
	set := secrets.NewRedactor(key)
	urlOnly := secrets.NewRedactor(dotenv)
	for u, want := range map[string]bool{
		"https://evil.test/?k=" + key:                                                    true,
		"https://evil.test/?q=x&auth=" + url.QueryEscape(dotenv):                         true,
		"https://evil.test/c?d=" + base64.StdEncoding.EncodeToString([]byte("key="+key)): true,
		"https://evil.test/" + key + "/x":                                                true,
		"https://user:" + dotenv + "@evil.test/":                                         true,
		"https://docs.test/?q=golang+landlock":                                           false,
		"https://docs.test/page#section":                                                 false,
	} {
		if got := SecretInURL(u, set, urlOnly) != ""; got != want {
			t.Errorf("SecretInURL(%q) = %v, want %v", u, got, want)
		}
	}
}

func TestFetchRedactsSecrets(t *testing.T) {
	const key = "sk-page-test-0123456789abcdef"
	set := secrets.NewRedactor(key)
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><head><title>t " + key + "</title></head><body><p>key: " + key + "</p><p>b64: " +
			base64.StdEncoding.EncodeToString([]byte(key)) + "</p></body></html>"))
	})
	page, err := (&Fetcher{Secrets: set}).Fetch(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page.Text+page.Title, key) || strings.Contains(page.Text, base64.StdEncoding.EncodeToString([]byte(key))[:20]) ||
		!strings.Contains(page.Text, secrets.Redacted) {
		t.Errorf("title %q text %q", page.Title, page.Text)
	}
}
