package agent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"

	"github.com/openai/openai-go/v3"
)

// Describe turns a model-call error into one clear line for a person. It
// never includes the API key: only the status, the server's message, the
// base URL and the model name.
func Describe(err error, baseURL, model string) string {
	var apiErr *openai.Error
	switch {
	case errors.Is(err, context.Canceled):
		return "interrupted"
	case errors.Is(err, context.DeadlineExceeded):
		return "the model request timed out"
	case errors.As(err, &apiErr):
		msg := strings.TrimSpace(apiErr.Message)
		switch apiErr.StatusCode {
		case 401:
			return "the API key was refused (401): check OPENAI_API_KEY"
		case 403:
			return "access denied (403): " + oneLine(msg)
		case 404:
			return fmt.Sprintf("model %s not found at %s (404)", model, baseURL)
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
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
