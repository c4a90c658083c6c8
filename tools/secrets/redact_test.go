package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

func TestRedactEncodings(t *testing.T) {
	// A key with characters that every encoding treats differently.
	const key = `sk-proj/Ab+c"d&e<f>~g_h0123456789?x=y`
	r := NewRedactor(key)
	js, _ := json.Marshal(key)
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(map[string]string{"k": key})
	cases := map[string]string{
		"plain":            "token: " + key + " end",
		"json":             `{"api_key":` + string(js) + `}`,
		"json no html":     b.String(),
		"json slash":       strings.ReplaceAll(key, "/", `\/`),
		"query escape":     "https://x.test/?k=" + url.QueryEscape(key),
		"path escape":      "https://x.test/" + url.PathEscape(key),
		"hex":              hex.EncodeToString([]byte(key)),
		"HEX":              strings.ToUpper(hex.EncodeToString([]byte(key))),
		"base64 std":       base64.StdEncoding.EncodeToString([]byte(key)),
		"base64 url":       base64.URLEncoding.EncodeToString([]byte(key)),
		"base64 raw":       base64.RawStdEncoding.EncodeToString([]byte(key)),
		"basic auth off 0": "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("abc"+key)),
		"basic auth off 1": "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+key)),
		"basic auth off 2": "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("u:"+key+":tail")),
		"url b64 off 1":    base64.RawURLEncoding.EncodeToString([]byte("x" + key + "yz")),
		"url b64 off 2":    base64.URLEncoding.EncodeToString([]byte("xy" + key)),
	}
	for name, text := range cases {
		got := r.Redact(text)
		if !strings.Contains(got, Redacted) {
			t.Errorf("%s: not redacted: %q", name, got)
		}
		if !r.Contains(text) {
			t.Errorf("%s: Contains = false", name)
		}
		// What is left must not decode back to the key.
		for _, rest := range strings.Fields(strings.NewReplacer(Redacted, " ", `"`, " ", ":", " ").Replace(got)) {
			for _, dec := range []func(string) ([]byte, error){base64.StdEncoding.DecodeString, base64.RawStdEncoding.DecodeString, hex.DecodeString} {
				if d, err := dec(rest); err == nil && strings.Contains(string(d), key[:12]) {
					t.Errorf("%s: %q still decodes to the key", name, rest)
				}
			}
		}
	}
}

func TestRedactLeavesOtherTextAlone(t *testing.T) {
	r := NewRedactor("short", "", "sk-abcdefghijklmnop")
	for _, s := range []string{"a short note", "sk-abc is not the key", "", "plain text, nothing secret"} {
		if got := r.Redact(s); got != s {
			t.Errorf("Redact(%q) = %q", s, got)
		}
	}
	var nilR *Redactor
	if nilR.Redact("x") != "x" || nilR.Contains("x") {
		t.Error("nil Redactor changed text")
	}
	r.Add("second-secret-value")
	if got := r.Redact("sk-abcdefghijklmnop and second-secret-value"); got != Redacted+" and "+Redacted {
		t.Errorf("got %q", got)
	}
}

func BenchmarkRedact30KB(b *testing.B) {
	r := NewRedactor("sk-proj-0123456789abcdefghijklmnopqrstuvwxyz", "ghp_0123456789abcdefghijklmnopqrstuv")
	text := strings.Repeat("ordinary build output line with paths /usr/lib/go and numbers 12345\n", 450)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		r.Redact(text)
	}
}

func TestRedactorWithoutValues(t *testing.T) {
	r := NewRedactor("sk-secret-value-123", "hunter2-horse")
	env := []string{"PATH=/bin", "RENAMED=sk-secret-value-123", "OTHER= hunter2-horse", "MODE=development", "EMPTY="}
	got := r.WithoutValues(env)
	want := []string{"PATH=/bin", "MODE=development", "EMPTY="}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("WithoutValues = %q, want %q", got, want)
	}
	if !r.ContainsBytes([]byte("x " + base64.StdEncoding.EncodeToString([]byte("sk-secret-value-123")))) {
		t.Error("ContainsBytes missed the base64 form")
	}
	if r.ContainsBytes([]byte("nothing here")) || NewRedactor().ContainsBytes([]byte("x")) || !NewRedactor().Empty() {
		t.Error("false hit or non-empty empty redactor")
	}
}
