// Package fetch loads web pages as readable text (HTML turned into
// Markdown), page by page, refusing binary content and vetting every
// connection's address; it also tells addresses and URLs that need asking.
package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/aci-dev/aci/tools/secrets"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
)

// Defaults of a zero Fetcher.
const (
	DefaultFetchTimeout  = 30 * time.Second
	DefaultFetchMaxBytes = 5 << 20
	maxRedirects         = 5
	fetchUserAgent       = "aci/0.1 (+terminal coding agent)"
	fetchAccept          = "text/html, text/plain, application/json;q=0.9, */*;q=0.5"
	// errorSnippetChars is how much of an error page is quoted back.
	errorSnippetChars = 200
)

// WebPage is a fetched URL reduced to text a model can read.
type WebPage struct {
	URL         string // final URL after redirects
	Status      int
	ContentType string // media type without params
	Title       string // from <title> for HTML, else ""
	Text        string // readable text: markdown for HTML, body as-is for text/* and JSON
	Truncated   bool   // body was longer than the read cap
}

// Fetcher loads web pages. The zero value is ready to use with the defaults.
type Fetcher struct {
	// Client sends the requests; nil means a fresh default client. Its
	// CheckRedirect, if nil, is replaced by the 5-redirect limit.
	Client *http.Client
	// MaxBytes caps how much of a body is read; 0 means 5 MB.
	MaxBytes int64
	// Timeout bounds the whole fetch, body included; 0 means 30 s.
	Timeout time.Duration
	// CheckAddr, if set, vets every address the fetch connects to,
	// redirects included, after DNS: an error refuses the connection. It
	// only applies when Client has no Transport of its own.
	CheckAddr func(ip netip.Addr) error
	// Secrets are kept out of what Fetch returns; nil redacts nothing.
	Secrets *secrets.Redactor
}

// fetchError keeps the message short and model-readable while still letting
// callers match the cause with errors.Is/As.
type fetchError struct {
	msg string
	err error
}

func (e *fetchError) Error() string { return e.msg }
func (e *fetchError) Unwrap() error { return e.err }

var errTooManyRedirects = errors.New("too many redirects")

// Fetch GETs rawURL and returns its content as readable text. HTML becomes
// markdown; text and JSON are returned as they are; other content types are
// refused. A non-2xx status is an error, returned with the page's URL,
// Status and ContentType filled in.
//
// No secret of f.Secrets comes back: page, title, URL and error text are
// redacted.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (WebPage, error) {
	page, err := f.fetch(ctx, rawURL)
	var set *secrets.Redactor // a nil Fetcher is one with the defaults
	if f != nil {
		set = f.Secrets
	}
	page.URL = set.Redact(page.URL)
	page.Title = set.Redact(page.Title)
	page.Text = set.Redact(page.Text)
	if err != nil {
		if msg := set.Redact(err.Error()); msg != err.Error() {
			err = &fetchError{msg: msg, err: err}
		}
	}
	return page, err
}

func (f *Fetcher) fetch(ctx context.Context, rawURL string) (WebPage, error) {
	if f == nil {
		f = &Fetcher{} // a nil *Fetcher behaves like the zero value
	}
	u, err := ParseFetchURL(rawURL)
	if err != nil {
		return WebPage{}, err
	}
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = DefaultFetchTimeout
	}
	maxBytes := f.MaxBytes
	if maxBytes <= 0 {
		maxBytes = DefaultFetchMaxBytes
	}

	// The deadline lives on the context rather than Client.Timeout so that
	// it also covers reading the body and we can tell it from the caller's.
	reqCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(reqCtx, http.MethodGet, u.String(), nil)
	if err != nil {
		return WebPage{}, fmt.Errorf("building request for %s: %w", u, err)
	}
	req.Header.Set("User-Agent", fetchUserAgent)
	req.Header.Set("Accept", fetchAccept)

	resp, err := f.client().Do(req)
	if err != nil {
		return WebPage{}, describeFetchError(ctx, err, u, timeout)
	}
	defer resp.Body.Close()

	page := WebPage{URL: resp.Request.URL.String(), Status: resp.StatusCode}
	header := resp.Header.Get("Content-Type")
	page.ContentType = mediaType(header)

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return page, statusError(resp, page)
	}
	kind := classify(page.ContentType)
	if page.ContentType != "" && kind == kindRefused {
		return page, &fetchError{msg: fmt.Sprintf(
			"cannot show %s: content type %q is not text (only HTML, text and JSON pages can be read)",
			page.URL, page.ContentType)}
	}

	body, truncated, err := readCapped(resp.Body, maxBytes)
	if err != nil {
		return page, describeFetchError(ctx, err, resp.Request.URL, timeout)
	}
	page.Truncated = truncated
	if page.ContentType == "" {
		// No header: trust the bytes, as browsers do.
		header = http.DetectContentType(body)
		page.ContentType = mediaType(header)
		kind = classify(page.ContentType)
		if kind == kindRefused {
			return page, &fetchError{msg: fmt.Sprintf(
				"cannot show %s: it sent no Content-Type and its body looks like %q, which is not text",
				page.URL, page.ContentType)}
		}
	}

	text := decodeText(body, header, truncated)
	switch kind {
	case kindHTML:
		page.Title, page.Text, err = HTMLToMarkdown(text, page.URL)
		if err != nil {
			return page, fmt.Errorf("reading %s: %w", page.URL, err)
		}
	default:
		page.Text = text
	}
	return page, nil
}

func (f *Fetcher) client() *http.Client {
	var c http.Client
	if f.Client != nil {
		c = *f.Client // a copy, so setting CheckRedirect never touches the caller's
	}
	if c.CheckRedirect == nil {
		c.CheckRedirect = checkRedirect
	}
	if f.CheckAddr != nil && c.Transport == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		d := &net.Dialer{Timeout: 10 * time.Second, Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return err
			}
			return f.CheckAddr(ap.Addr().Unmap())
		}}
		t.DialContext = d.DialContext
		t.Proxy = nil // the address vetted must be the one reached
		c.Transport = t
	}
	return &c
}

func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return errTooManyRedirects
	}
	if s := req.URL.Scheme; s != "http" && s != "https" {
		return fmt.Errorf("redirected to unsupported scheme %q", s)
	}
	return nil
}

// ParseFetchURL checks that rawURL is an absolute http or https URL, with
// an error that tells the model how to fix it when it is not.
func ParseFetchURL(rawURL string) (*url.URL, error) {
	s := strings.TrimSpace(rawURL)
	if s == "" {
		return nil, errors.New("empty URL: give a full URL such as https://example.com/page")
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("invalid URL %q: %w", s, err)
	}
	// "example.com/x" parses with no scheme, "localhost:8080/x" with the
	// scheme "localhost": both are a host the user forgot to prefix.
	if u.Scheme == "" || (u.Opaque != "" && startsWithDigit(u.Opaque)) {
		fixed := "https://" + strings.TrimPrefix(s, "//")
		return nil, fmt.Errorf("URL %q has no scheme: use a full URL such as %q", s, fixed)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	default:
		return nil, fmt.Errorf("unsupported URL scheme %q in %q: only http and https URLs can be fetched", u.Scheme, s)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("URL %q has no host: use a URL such as https://example.com/page", s)
	}
	u.Fragment = "" // never sent; keeps the reported URL clean
	u.RawFragment = ""
	return u, nil
}

func startsWithDigit(s string) bool { return s[0] >= '0' && s[0] <= '9' }

// describeFetchError turns transport errors into one-line messages saying
// what went wrong in terms the model can act on.
func describeFetchError(parent context.Context, err error, u *url.URL, timeout time.Duration) error {
	wrap := func(format string, args ...any) error {
		return &fetchError{msg: fmt.Sprintf(format, args...), err: err}
	}
	// After a redirect the failing host is not the one asked for: name it.
	host := u
	var uerr *url.Error
	if errors.As(err, &uerr) {
		if fu, perr := url.Parse(uerr.URL); perr == nil && fu.Host != "" {
			host = fu
		}
	}
	var dnsErr *net.DNSError
	switch {
	case parent.Err() != nil:
		// The caller gave up (Ctrl-C or its own deadline): not the site's fault.
		return wrap("fetching %s: %v", u, parent.Err())
	case errors.Is(err, errTooManyRedirects):
		return wrap("fetching %s: stopped after %d redirects", u, maxRedirects)
	case errors.As(err, &dnsErr):
		// Before the timeout case: a lookup that timed out is still a
		// name-resolution problem, which is what the model must know.
		hint := "the DNS lookup failed; the network may be down"
		if dnsErr.IsNotFound {
			hint = "no such host; check the host name for typos"
		}
		return wrap("cannot resolve host %s: %s (%v)", host.Hostname(), hint, dnsErr)
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return wrap("timed out after %s fetching %s", timeout, u)
	case errors.Is(err, syscall.ECONNREFUSED):
		return wrap("connection refused by %s: nothing is listening there", host.Host)
	}
	if uerr != nil {
		err = uerr.Err // drop the `Get "URL":` prefix, the URL is said below
	}
	return &fetchError{msg: fmt.Sprintf("fetching %s: %v", u, err), err: err}
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

func statusError(resp *http.Response, page WebPage) error {
	reason := http.StatusText(resp.StatusCode)
	if reason == "" {
		reason = strings.TrimSpace(strings.TrimPrefix(resp.Status, fmt.Sprint(resp.StatusCode)))
	}
	msg := strings.TrimSpace(fmt.Sprintf("HTTP %d %s", resp.StatusCode, reason)) + " for " + page.URL
	if snippet := errorSnippet(resp, page.ContentType); snippet != "" {
		msg += ": " + snippet
	}
	return &fetchError{msg: msg}
}

// errorSnippet quotes the start of a small text error body: APIs often say
// there exactly what was wrong.
func errorSnippet(resp *http.Response, contentType string) string {
	kind := classify(contentType)
	if kind == kindRefused {
		return ""
	}
	body, truncated, err := readCapped(resp.Body, 64<<10)
	if err != nil || truncated || len(body) == 0 {
		return ""
	}
	text := decodeText(body, resp.Header.Get("Content-Type"), false)
	if kind == kindHTML {
		if _, md, err := HTMLToMarkdown(text, ""); err == nil {
			text = md
		}
	}
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) > errorSnippetChars {
		text = string([]rune(text)[:errorSnippetChars]) + "…"
	}
	return text
}

type contentKind int

const (
	kindRefused contentKind = iota
	kindHTML
	kindText
)

// textApplicationTypes are application/* types that are text in practice.
var textApplicationTypes = map[string]bool{
	"application/json": true, "application/xml": true, "application/javascript": true,
	"application/ecmascript": true, "application/x-javascript": true,
	"application/yaml": true, "application/x-yaml": true, "application/toml": true,
	"application/x-ndjson": true, "application/x-sh": true, "application/sql": true,
	"application/graphql": true, "application/x-www-form-urlencoded": true,
}

func classify(mt string) contentKind {
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return kindHTML
	case strings.HasPrefix(mt, "text/"), textApplicationTypes[mt],
		strings.HasSuffix(mt, "+json"), strings.HasSuffix(mt, "+xml"):
		return kindText
	}
	return kindRefused
}

// mediaType returns the lower-case media type of a Content-Type header,
// tolerating the malformed parameters some servers send.
func mediaType(header string) string {
	if header == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(header)
	if err != nil {
		mt, _, _ = strings.Cut(header, ";")
	}
	return strings.ToLower(strings.TrimSpace(mt))
}

// readCapped reads at most limit bytes and reports whether more existed.
func readCapped(r io.Reader, limit int64) ([]byte, bool, error) {
	body, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(body)) > limit {
		return body[:limit], true, nil
	}
	return body, false, nil
}

// decodeText converts body to valid UTF-8 using the charset of the header,
// a BOM or an HTML <meta>, falling back on windows-1252 for invalid UTF-8.
func decodeText(body []byte, contentType string, truncated bool) string {
	utf := body
	if truncated {
		utf = trimPartialRune(body)
	}
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	// DetermineEncoding only looks at the first 1 KB, so an ASCII start
	// followed by UTF-8 would be misread as windows-1252: without a declared
	// charset, a body that is valid UTF-8 as a whole is taken as UTF-8.
	if name != "utf-8" && !(!certain && utf8.Valid(utf)) {
		if decoded, err := enc.NewDecoder().Bytes(body); err == nil {
			return strings.ToValidUTF8(string(decoded), "\uFFFD")
		}
	}
	utf = bytes.TrimPrefix(utf, []byte("\xEF\xBB\xBF"))
	return strings.ToValidUTF8(string(utf), "\uFFFD")
}

// trimPartialRune drops a UTF-8 sequence cut in half by the read cap, which
// would otherwise show up as a stray replacement character.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}

// Paginate splits text into pages of at most pageSize characters (runes),
// breaking after a newline where it can and inside a line only when the line
// alone exceeds pageSize. Joining the pages gives back text. It always
// returns at least one page, "" for empty text; pageSize <= 0 means one page.
func Paginate(text string, pageSize int) []string {
	if pageSize <= 0 || utf8.RuneCountInString(text) <= pageSize {
		return []string{text}
	}
	var pages []string
	start, runes := 0, 0 // current page: byte offset where it starts, runes in it
	for pos := 0; pos < len(text); {
		end := len(text)
		if nl := strings.IndexByte(text[pos:], '\n'); nl >= 0 {
			end = pos + nl + 1
		}
		line := text[pos:end]
		n := utf8.RuneCountInString(line)
		if runes+n <= pageSize {
			runes += n
			pos = end
			continue
		}
		if runes > 0 { // close the page before this line
			pages = append(pages, text[start:pos])
			start, runes = pos, 0
			continue
		}
		// A single line longer than a page: cut it at a rune boundary.
		cut := pos
		for i := 0; i < pageSize; i++ {
			_, size := utf8.DecodeRuneInString(text[cut:])
			cut += size
		}
		pages = append(pages, text[start:cut])
		start, pos = cut, cut
	}
	if start < len(text) {
		pages = append(pages, text[start:])
	}
	return pages
}
