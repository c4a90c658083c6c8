// Package search asks web search engines for results (title, URL,
// snippet): a model provider's own web search, a SearXNG-style JSON
// endpoint, DuckDuckGo's HTML page. One file per engine; Chain tries them
// in order and caches what they answered.
package search

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Result is one hit.
type Result struct {
	Title   string
	URL     string
	Snippet string
}

// Page is one answer of an engine: its results and how to ask for the
// next ones ("" when there are none).
type Page struct {
	Results []Result
	Next    string
}

// Engine is one search engine.
type Engine interface {
	// Name is how the window names the engine that answered.
	Name() string
	// Endpoint is the URL the engine sends its requests to, for the
	// person's rules to judge before it is asked.
	Endpoint() string
	// Search asks for the results of query; cursor is "" for the first
	// page, else a Page.Next this engine gave.
	Search(ctx context.Context, query, cursor string) (Page, error)
}

// Defaults.
const (
	DefaultTimeout = 15 * time.Second
	maxBody        = 2 << 20
	userAgent      = "aci/0.1 (+terminal coding agent)"
	snippetRunes   = 300
)

// Error is an engine's failure, said so the model and the person know
// what to do: Kind sorts it (down, slow, rate-limited, unreadable, refused).
type Error struct {
	Kind string
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// The kinds of Error.
const (
	KindDown        = "down"
	KindSlow        = "slow"
	KindRateLimited = "rate-limited"
	KindUnreadable  = "unreadable"
	KindRefused     = "refused"
)

func fail(kind, format string, args ...any) error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// Client is the HTTP client every engine sends through: a deadline on the
// whole request, no proxy, no redirect to another host than the one asked
// (an engine answers from its own host; anything else is refused), and,
// when refuse is set, every address the request connects to vetted after
// DNS.
func Client(timeout time.Duration, refuse func(netip.Addr) error) *http.Client {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil // the address vetted must be the one reached
	d := &net.Dialer{Timeout: 10 * time.Second}
	if refuse != nil {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return err
			}
			return refuse(ap.Addr().Unmap())
		}
	}
	t.DialContext = d.DialContext
	return &http.Client{Transport: t, Timeout: timeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 3 {
			return errors.New("too many redirects")
		}
		if req.URL.Host != via[0].URL.Host {
			return fmt.Errorf("redirected to another host (%s)", req.URL.Host)
		}
		return nil
	}}
}

// do sends req and returns the body of a 2xx answer, or an Error saying
// what went wrong in the engine's name.
func do(c *http.Client, req *http.Request, name string) ([]byte, http.Header, int, error) {
	req.Header.Set("User-Agent", userAgent)
	resp, err := c.Do(req)
	if err != nil {
		return nil, nil, 0, transportError(req.Context(), err, name, c.Timeout)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, nil, 0, transportError(req.Context(), err, name, c.Timeout)
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		msg := name + " is rate-limiting requests (HTTP 429)"
		if ra := resp.Header.Get("Retry-After"); ra != "" {
			msg += "; it asks to wait " + ra + " s"
		}
		return nil, nil, resp.StatusCode, fail(KindRateLimited, "%s", msg)
	case resp.StatusCode >= 500:
		return nil, nil, resp.StatusCode, fail(KindDown, "%s answered HTTP %d %s", name, resp.StatusCode, http.StatusText(resp.StatusCode))
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return body, resp.Header, resp.StatusCode, fail(KindRefused, "%s answered HTTP %d %s%s", name, resp.StatusCode,
			http.StatusText(resp.StatusCode), quote(body))
	}
	return body, resp.Header, resp.StatusCode, nil
}

func transportError(ctx context.Context, err error, name string, timeout time.Duration) error {
	var dnsErr *net.DNSError
	var t interface{ Timeout() bool }
	switch {
	case ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("asking %s: %w", name, ctx.Err())
	case errors.As(err, &dnsErr):
		return fail(KindDown, "%s cannot be reached: its host name does not resolve (%v)", name, dnsErr)
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &t) && t.Timeout()):
		return fail(KindSlow, "%s did not answer within %s", name, timeout)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fail(KindDown, "%s is down: connection refused", name)
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	return fail(KindDown, "%s cannot be reached: %v", name, err)
}

// quote is the start of a small error body, on one line.
func quote(body []byte) string {
	s := strings.Join(strings.Fields(string(body)), " ")
	if s == "" || strings.HasPrefix(s, "<") {
		return ""
	}
	return ": " + clip(s, 160)
}

// clip cuts s to n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n])) + "…"
}

// tidy makes a title or snippet one clean line.
func tidy(s string) string { return clip(strings.Join(strings.Fields(s), " "), snippetRunes) }

// webURL keeps only http and https links: a result is opened as a page.
func webURL(s string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", false
	}
	return u.String(), true
}
