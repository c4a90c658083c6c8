package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/openai/openai-go/v3"
)

// CallError is a model call that failed for good: the model it went to,
// how many attempts were made, and why no more were.
type CallError struct {
	Model    string
	Attempts int
	Note     string // why it stopped early, e.g. a Retry-After too long to wait
	Err      error
}

func (e *CallError) Error() string {
	return fmt.Sprintf("model %s, %d attempt(s): %v", e.Model, e.Attempts, e.Err)
}

func (e *CallError) Unwrap() error { return e.Err }

// ParseError is a response body that is not the JSON it should be.
type ParseError struct {
	Raw string // the start of the body, with the API key redacted
	Err error  // what the decoder said
}

// rawShown is how much of an unparsable body an error message quotes.
const rawShown = 200

func (e *ParseError) Error() string {
	raw := e.Raw
	if r := []rune(raw); len(r) > rawShown {
		raw = string(r[:rawShown]) + "…"
	}
	if strings.TrimSpace(raw) == "" {
		raw = "(empty)"
	}
	return "Failed to parse API response as JSON. Raw response: " + raw
}

func (e *ParseError) Unwrap() error { return e.Err }

// IdleError is a request aborted because the server sent nothing for a
// while: no headers, or no stream data.
type IdleError struct{ After time.Duration }

func (e *IdleError) Error() string {
	return fmt.Sprintf("the model API sent nothing for %s", e.After)
}

// Describe turns a model-call error into one clear line for a person. It
// never includes the API key: only the status, the server's message, the
// base URL and the model name.
func Describe(err error, baseURL, model string) string {
	baseURL = scrubURL(baseURL)
	var ce *CallError
	if !errors.As(err, &ce) {
		return describe(err, baseURL, model)
	}
	suffix := ""
	switch {
	case ce.Note != "":
		suffix = " (" + ce.Note + ")"
	case ce.Attempts > 1:
		suffix = fmt.Sprintf(" (gave up after %d attempts)", ce.Attempts)
	}
	return describe(ce.Err, baseURL, ce.Model) + suffix
}

func describe(err error, baseURL, model string) string {
	var apiErr *openai.Error
	var parseErr *ParseError
	switch {
	case errors.Is(err, context.Canceled):
		return "interrupted"
	case errors.Is(err, context.DeadlineExceeded):
		return "the model request timed out"
	case errors.As(err, &parseErr):
		return oneLine(parseErr.Error())
	case errors.Is(err, ErrCutAfterText):
		return oneLine(err.Error())
	case errors.As(err, &apiErr):
		msg := strings.TrimSpace(apiErr.Message)
		switch apiErr.StatusCode {
		case 401:
			return "the API key was refused (401): check OPENAI_API_KEY"
		case 403:
			return "access denied (403): " + oneLine(msg)
		case 404:
			// The server's words follow: a wrong base URL gives a 404 too,
			// and they tell the two apart.
			line := fmt.Sprintf("model %s not found at %s (404)", model, baseURL)
			if msg != "" {
				line += ": " + oneLine(msg)
			}
			return line
		case 429:
			return "rate limited (429): " + oneLine(msg)
		}
		if msg == "" {
			return fmt.Sprintf("API error %d %s from %s", apiErr.StatusCode, statusWord(apiErr.StatusCode), baseURL)
		}
		return fmt.Sprintf("API error %d: %s", apiErr.StatusCode, oneLine(msg))
	}
	var opErr *net.OpError
	if errors.Is(err, syscall.ECONNREFUSED) || (errors.As(err, &opErr) && opErr.Op == "dial") {
		return "cannot reach " + baseURL + ": " + oneLine(rootCause(err))
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return "cannot reach " + baseURL + ": unknown host " + dnsErr.Name
	}
	switch {
	case errors.Is(err, ErrStreamCut):
		return ErrStreamCut.Error()
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection was cut off before the reply finished"
	case errors.Is(err, syscall.ECONNRESET):
		return "the connection was reset by " + baseURL
	}
	s := err.Error()
	if strings.Contains(s, "invalid character") || strings.Contains(s, "cannot unmarshal") {
		return "Failed to parse API response as JSON: " + oneLine(s)
	}
	return oneLine(scrubURL(s))
}

func statusWord(code int) string {
	switch {
	case code >= 500:
		return "(server error)"
	case code >= 400:
		return "(request refused)"
	}
	return ""
}

func rootCause(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// scrubURL drops any user:password part of URLs in s.
func scrubURL(s string) string {
	fields := strings.Fields(s)
	for i, f := range fields {
		if u, err := url.Parse(strings.Trim(f, `"'`)); err == nil && u.User != nil {
			u.User = nil
			fields[i] = u.String()
		}
	}
	return strings.Join(fields, " ")
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	return s
}
