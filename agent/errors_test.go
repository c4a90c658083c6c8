package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
)

func TestDescribeLines(t *testing.T) {
	const base = "https://api.example.com/v1"
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	for _, tt := range []struct {
		err  error
		want string
	}{
		{&openai.Error{StatusCode: 401, Message: "Incorrect API key provided: sk-abc"}, "the API key was refused (401): check OPENAI_API_KEY"},
		{&openai.Error{StatusCode: 404, Code: "model_not_found"}, "model m not found at " + base + " (404)"},
		{&openai.Error{StatusCode: 404, Message: "Invalid URL (POST /v1/v1/chat/completions)"}, "model m not found at " + base + " (404): Invalid URL (POST /v1/v1/chat/completions)"},
		{&openai.Error{StatusCode: 502}, "API error 502 (server error) from " + base},
		{&CallError{Model: "backup", Attempts: 1, Err: &openai.Error{StatusCode: 404}}, "model backup not found at " + base + " (404)"},
		{&CallError{Model: "m", Attempts: 4, Err: &openai.Error{StatusCode: 429, Message: "slow down"}}, "rate limited (429): slow down (gave up after 4 attempts)"},
		{&CallError{Model: "m", Attempts: 1, Err: &openai.Error{StatusCode: 429, Message: "slow down"}, Note: "the server asks to wait 1h0m0s"}, "rate limited (429): slow down (the server asks to wait 1h0m0s)"},
		{&CallError{Model: "m", Attempts: 4, Err: &IdleError{After: 2 * time.Minute}}, "the model API sent nothing for 2m0s (gave up after 4 attempts)"},
		{&CallError{Model: "m", Attempts: 4, Err: ErrStreamCut}, "the response stream was cut off before the reply finished (gave up after 4 attempts)"},
		{&CallError{Model: "m", Attempts: 4, Err: fmt.Errorf("stream: %w", io.ErrUnexpectedEOF)}, "the connection was cut off before the reply finished (gave up after 4 attempts)"},
		{&CallError{Model: "m", Attempts: 1, Err: fmt.Errorf("%w (%v)", ErrCutAfterText, io.ErrUnexpectedEOF)}, "the response stream was cut off after text was shown; not retrying (unexpected EOF)"},
		{&ParseError{Raw: "<html>\n  <b>oops</b>\n</html>"}, "Failed to parse API response as JSON. Raw response: <html> <b>oops</b> </html>"},
		{&ParseError{Raw: ""}, "Failed to parse API response as JSON. Raw response: (empty)"},
		{fmt.Errorf("Post %q: %w", base+"/chat/completions", refused), "cannot reach " + base + ": connection refused"},
		{&net.DNSError{Name: "api.example.com", Err: "no such host"}, "cannot reach " + base + ": unknown host api.example.com"},
		{fmt.Errorf("model call: %w", context.Canceled), "interrupted"},
	} {
		if got := Describe(tt.err, base, "m"); got != tt.want {
			t.Errorf("Describe(%v)\n got %q\nwant %q", tt.err, got, tt.want)
		}
	}
}

func TestDescribeHidesCredentials(t *testing.T) {
	got := Describe(&openai.Error{StatusCode: 502}, "https://user:hunter2@proxy.example.com/v1", "m")
	if strings.Contains(got, "hunter2") || !strings.Contains(got, "https://proxy.example.com/v1") {
		t.Errorf("Describe = %q", got)
	}
}

func TestParseErrorQuotes200Runes(t *testing.T) {
	err := &ParseError{Raw: strings.Repeat("é", 500)}
	got := Describe(err, "http://x", "m")
	raw := strings.TrimPrefix(got, "Failed to parse API response as JSON. Raw response: ")
	if raw != strings.Repeat("é", 200)+"…" {
		t.Errorf("raw part %q", raw)
	}
	if !errors.As(error(err), new(*ParseError)) {
		t.Error("not a ParseError")
	}
}

func TestOneLineCutsRunes(t *testing.T) {
	got := oneLine(strings.Repeat("日本", 400))
	if r := []rune(got); len(r) != 301 || r[300] != '…' {
		t.Errorf("oneLine kept %d runes", len(r))
	}
}
