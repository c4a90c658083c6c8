package serve

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The decoders take whatever a client sends: they must never panic, say
// what is wrong in one line, and accept only what the handlers can use.

func seeds(f *testing.F, list ...string) {
	for _, s := range list {
		f.Add([]byte(s))
	}
}

func checkErr(t *testing.T, err error) {
	if err != nil && (strings.Contains(err.Error(), "\n") || !utf8.ValidString(err.Error())) {
		t.Fatalf("error is not one valid line: %q", err)
	}
}

func FuzzDecodeCreate(f *testing.F) {
	seeds(f, ``, `{}`, `{"model":"m"}`, `{"model":1}`, `{"x":1}`, `{"model":"a\u0000"}`, `null`)
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := decodeCreate(body)
		checkErr(t, err)
		if err == nil && strings.ContainsAny(req.Model, "\x00\r\n") {
			t.Fatalf("accepted model %q", req.Model)
		}
	})
}

func FuzzDecodeMessage(f *testing.F) {
	seeds(f, `{"text":"hi"}`, `{"text":""}`, `{"text":null}`, `{"text":"a"} x`, `[`, `{"text":"\ud800"}`)
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := decodeMessage(body)
		checkErr(t, err)
		if err == nil && strings.TrimSpace(req.Text) == "" {
			t.Fatal("accepted an empty question")
		}
	})
}

func FuzzDecodeDecision(f *testing.F) {
	seeds(f, `{"decision":"allow"}`, `{"decision":"deny","message":"no"}`, `{"decision":"always"}`, `{"decision":"ALLOW"}`, `{"decision":null}`)
	f.Fuzz(func(t *testing.T, body []byte) {
		d, err := decodeDecision(body)
		checkErr(t, err)
		if err == nil && d.Always && !d.Allow {
			t.Fatal("always without allow")
		}
		if err != nil && d.Allow {
			t.Fatal("a bad body allowed")
		}
	})
}

func FuzzDecodeFork(f *testing.F) {
	seeds(f, `{"turn":1}`, `{"turn":-1}`, `{"turn":1e3}`, `{"turn":"1"}`, `{"turn":99999999999999999999}`, `{}`)
	f.Fuzz(func(t *testing.T, body []byte) {
		n, err := decodeFork(body)
		checkErr(t, err)
		if err == nil && n < 1 {
			t.Fatalf("accepted turn %d", n)
		}
	})
}
