package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// provider.go is the one place that knows what a model API's error means.
// Every OpenAI-compatible server words its refusals its own way; Classify
// sorts them into an ErrorClass, and retry, fallback, compression and the
// line shown to the user all go by that class. A new provider quirk is one
// row in quirks (provider_body.go reads the bodies).

// ErrorClass is what a failed model call means for what to do next.
type ErrorClass int

const (
	ClassUnknown         ErrorClass = iota // not understood: neither retried nor fallen back
	ClassContextOverflow                   // the request is longer than the model's context: compress, then retry once
	ClassRateLimit                         // too many requests for now: wait (Retry-After) and retry
	ClassQuota                             // out of credits or quota: waiting will not help
	ClassAuth                              // the API key was refused
	ClassDenied                            // the key may not use this (403)
	ClassModelNotFound                     // no such model here; another may exist
	ClassContentFilter                     // the provider's content filter refused the prompt
	ClassBadRequest                        // any other refusal of the request itself
	ClassOverloaded                        // the server is busy or still loading the model
	ClassTransient                         // 5xx, timeouts, dropped connections, cut streams
	ClassUnreachable                       // nothing listens there, or the host is unknown
	ClassBadResponse                       // a reply that is not the JSON it should be
	ClassCanceled                          // the user interrupted
	ClassNoImages                          // the model takes no pictures: notes go in their place (images.go)
)

var classNames = [...]string{"unknown", "context_overflow", "rate_limit", "quota", "auth", "denied",
	"model_not_found", "content_filter", "bad_request", "overloaded", "transient", "unreachable",
	"bad_response", "canceled", "no_images"}

func (c ErrorClass) String() string {
	if c >= 0 && int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("ErrorClass(%d)", int(c))
}

// Retryable reports whether the same request to the same model may pass
// after a wait.
func (c ErrorClass) Retryable() bool {
	return c == ClassRateLimit || c == ClassOverloaded || c == ClassTransient
}

// Fallback reports whether another model may pass where this one failed.
func (c ErrorClass) Fallback() bool {
	return c.Retryable() || c == ClassModelNotFound
}

// APIError is a model-call error as the rest of aci reads it.
type APIError struct {
	Class   ErrorClass
	Status  int    // the HTTP status, or the status an error event in a stream carries; 0 if none
	Code    string // the provider's error code or type, e.g. "context_length_exceeded"
	Message string // the provider's words on one line, with an upstream provider's reason after them
	// RetryAfter is how long the server asks to wait (Retry-After or
	// retry-after-ms), when HasRetryAfter.
	RetryAfter    time.Duration
	HasRetryAfter bool
	Provider      string // whose quirk matched, or whose body shape it was; "" when unknown
	Reason        string // a few words for the retry and fallback lines
}

// Classify reads an error from the model client (Complete, or one attempt).
func Classify(err error) APIError { return classifyAt(err, time.Now()) }

// quirk is one row of the table: an error whose status, code and text all
// match (zero values match anything) is of class.
type quirk struct {
	provider string
	status   int    // 0: any
	code     string // equals the error's code, type or inner code, ignoring case
	text     string // lower case, contained in the message or the upstream reason
	class    ErrorClass
}

// quirks are tried in order; the first match wins, then the status decides
// (statusClass). Where each body comes from is in provider_test.go.
var quirks = []quirk{
	// A model without vision: the turn goes on with notes in the pictures'
	// place. Before the rows below, which would read these as other things.
	{"openai", 0, "", "image_url is only supported by certain models", ClassNoImages},
	{"llama.cpp", 0, "", "image input is not supported", ClassNoImages}, // 500, without --mmproj
	{"vllm", 0, "", "is not a multimodal model", ClassNoImages},
	{"openrouter", 0, "", "support image input", ClassNoImages}, // 404 "No endpoints found that support image input"
	{"", 0, "", "image input not supported", ClassNoImages},
	{"", 0, "", "does not support image", ClassNoImages},

	// OpenAI returns 429 rate_limit_exceeded for a request larger than the
	// whole tokens-per-minute limit: waiting never helps, shrinking does.
	{"openai", 429, "rate_limit_exceeded", "request too large", ClassContextOverflow},
	{"openai", 0, "context_length_exceeded", "", ClassContextOverflow},
	{"llama.cpp", 0, "exceed_context_size_error", "", ClassContextOverflow},
	{"llama.cpp", 0, "", "exceeds the available context size", ClassContextOverflow},
	{"ollama", 0, "", "input length exceeds the context length", ClassContextOverflow}, // sent with 400 or 500
	{"vllm", 0, "", "maximum context length", ClassContextOverflow},                    // also OpenAI and OpenRouter's wording
	{"vllm", 0, "", "context length is only", ClassContextOverflow},                    // vLLM 0.16 and later
	{"", 0, "", "context window", ClassContextOverflow},
	{"", 0, "", "context length", ClassContextOverflow},
	{"", 413, "", "", ClassContextOverflow}, // request entity too large: shrinking it helps

	{"openai", 0, "insufficient_quota", "", ClassQuota}, // a 429 that no wait will lift
	{"openrouter", 402, "", "", ClassQuota},
	{"openai", 0, "rate_limit_exceeded", "", ClassRateLimit},

	{"openai", 0, "invalid_api_key", "", ClassAuth},
	{"azure", 0, "content_filter", "", ClassContentFilter},
	{"azure", 0, "ResponsibleAIPolicyViolation", "", ClassContentFilter},

	// A model that takes no reasoning effort refuses the field: OpenAI's
	// "Unsupported parameter: 'reasoning_effort'…", others in their words.
	{"effort", 400, "", "reasoning_effort", ClassBadRequest},
	{"effort", 400, "", "reasoning effort", ClassBadRequest},
	// One that takes no structured output refuses response_format (or the
	// schema in it): the answer is asked for in words (format.go).
	{"format", 400, "", "response_format", ClassBadRequest},
	{"format", 400, "", "json_schema", ClassBadRequest},

	{"openai", 0, "model_not_found", "", ClassModelNotFound},
	{"azure", 0, "DeploymentNotFound", "", ClassModelNotFound},
	{"ollama", 0, "", "try pulling it first", ClassModelNotFound},
	{"openrouter", 0, "", "no endpoints found", ClassModelNotFound},

	{"llama.cpp", 0, "unavailable_error", "", ClassOverloaded}, // 503 "Loading model"
	{"ollama", 0, "", "server busy", ClassOverloaded},
	{"", 0, "", "overloaded", ClassOverloaded},
}

// statusClass sorts what no quirk matched by its status alone.
func statusClass(status int) ErrorClass {
	switch {
	case status == http.StatusUnauthorized:
		return ClassAuth
	case status == http.StatusPaymentRequired:
		return ClassQuota
	case status == http.StatusForbidden:
		return ClassDenied
	case status == http.StatusNotFound:
		return ClassModelNotFound
	case status == http.StatusTooManyRequests:
		return ClassRateLimit
	case status == http.StatusRequestTimeout, status == http.StatusConflict:
		return ClassTransient
	case status == http.StatusServiceUnavailable, status == 529:
		return ClassOverloaded
	case status >= 500:
		return ClassTransient
	case status >= 400:
		return ClassBadRequest
	}
	return ClassUnknown
}

func (q quirk) matches(status int, codes []string, text string) bool {
	if q.status != 0 && q.status != status {
		return false
	}
	if q.code != "" && !containsFold(codes, q.code) {
		return false
	}
	return q.text == "" || strings.Contains(text, q.text)
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func classifyAt(err error, now time.Time) APIError {
	if err == nil {
		return APIError{}
	}
	if e, ok := classifyHTTP(err, now); ok {
		return e
	}
	var parse *ParseError
	var idle *IdleError
	var netErr net.Error
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &parse):
		return APIError{Class: ClassBadResponse, Reason: "the reply is not JSON"}
	case errors.Is(err, context.Canceled):
		return APIError{Class: ClassCanceled, Reason: "interrupted"}
	case errors.As(err, &idle) && idle.FirstByte:
		return APIError{Class: ClassTransient, Reason: "no first byte within " + idle.After.String()}
	case errors.As(err, &idle):
		return APIError{Class: ClassTransient, Reason: "no data for " + idle.After.String()}
	case errors.Is(err, ErrStreamCut), errors.Is(err, io.ErrUnexpectedEOF):
		return APIError{Class: ClassTransient, Reason: "the response was cut off"}
	case errors.Is(err, syscall.ECONNREFUSED), errors.As(err, &dnsErr):
		// Nothing listens there: retrying or another model on the same
		// server will not change that, and the person should know at once.
		return APIError{Class: ClassUnreachable, Reason: "cannot connect"}
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE), errors.Is(err, io.EOF):
		return APIError{Class: ClassTransient, Reason: "connection reset"}
	case errors.As(err, &netErr) && netErr.Timeout():
		return APIError{Class: ClassTransient, Reason: "timed out"}
	}
	return APIError{Class: ClassUnknown}
}

// classifyHTTP reads an error that carries a provider's answer: a non-2xx
// response, or an error event inside a stream.
func classifyHTTP(err error, now time.Time) (APIError, bool) {
	var se *StatusError
	var ae *openai.Error
	var stream *ssestream.StreamError
	var e APIError
	var b errBody
	var header http.Header
	switch {
	case errors.As(err, &se):
		e.Status, header = se.Status, se.Header
		b = parseBody([]byte(se.Body))
		if errors.As(se.Err, &ae) {
			b.fillFrom(ae) // the body was cut at rawKeep, or the SDK read more
		}
	case errors.As(err, &ae):
		e.Status = ae.StatusCode
		if ae.Response != nil {
			header = ae.Response.Header
		}
		if raw := ae.RawJSON(); raw != "" {
			b = parseBody([]byte(`{"error":` + raw + `}`))
		}
		b.fillFrom(ae)
	case errors.As(err, &stream):
		b = parseBody(stream.Event.Data)
		e.Status = b.status
	default:
		return APIError{}, false
	}
	e.Code, e.Message, e.Provider = b.code(), b.message(), b.provider
	if se != nil && se.key != "" {
		e.Message = strings.ReplaceAll(e.Message, se.key, "[redacted]")
	}
	codes := []string{b.Code, b.Type, b.Inner, b.UpstreamCode}
	text := strings.ToLower(b.Message + " " + b.Upstream)
	for _, q := range quirks {
		if q.matches(e.Status, codes, text) {
			e.Class = q.class
			if q.provider != "" {
				e.Provider = q.provider
			}
			break
		}
	}
	if e.Class == ClassUnknown {
		e.Class = statusClass(e.Status)
	}
	if e.Class == ClassUnknown && stream != nil {
		e.Class = ClassTransient // as before: an error event mid-stream may pass on a retry
	}
	if header != nil {
		e.RetryAfter, e.HasRetryAfter = retryAfter(header, now)
		if e.Provider == "" && (header.Get("Apim-Request-Id") != "" || header.Get("X-Ms-Region") != "") {
			e.Provider = "azure"
		}
	}
	e.Reason = statusReason(e.Status)
	if e.Status == 0 {
		e.Reason = "error in the stream"
	}
	return e, true
}

// StatusError is a non-2xx answer from the model API: its status, headers
// and the start of its body with the API key redacted. The client returns
// it whatever the SDK made of the body, which for some servers is not an
// OpenAI error at all (Ollama's {"error":"..."}).
type StatusError struct {
	Status int
	Header http.Header
	Body   string
	Err    error  // what the SDK said
	key    string // the API key, to redact it from what the SDK parsed too
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("HTTP %d: %v", e.Status, e.Err)
}

func (e *StatusError) Unwrap() error { return e.Err }

// statusError wraps the error of an attempt whose response was a whole
// non-2xx body; other errors pass unchanged.
func (c *OpenAIClient) statusError(rec *recorder, err error) error {
	if err == nil || rec.status < 400 || !rec.eof {
		return err
	}
	return &StatusError{Status: rec.status, Header: rec.header, Body: c.redact(string(rec.head)), Err: err, key: c.key()}
}
