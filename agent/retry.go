package agent

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Retry policy. Four attempts ride out a brief overload or a dropped
// connection without keeping a person waiting long on a real outage.
const (
	maxAttempts   = 4
	backoffBase   = time.Second     // the wait before the second attempt, before jitter
	backoffMax    = 8 * time.Second // no backoff wait grows beyond this
	maxRetryAfter = 2 * time.Minute // a server asking for longer is not waited for
)

// ErrCutAfterText ends a request whose stream broke after its text was
// already shown: a retry would show the text twice, or a different text.
var ErrCutAfterText = errors.New("the response stream was cut off after text was shown; not retrying")

// retrier holds the retry and fallback state of an OpenAIClient.
type retrier struct {
	models []string // the configured model, then the fallbacks
	notify func(string)
	// sleep, jitter and now are replaced by tests.
	sleep  func(context.Context, time.Duration) error
	jitter func() float64 // in [0, 1)
	now    func() time.Time

	mu      sync.Mutex
	current int // index in models of the one that answered last
}

func newRetrier(model string, fallbacks []string, notify func(string)) retrier {
	models := []string{model}
	for _, m := range fallbacks {
		if m = strings.TrimSpace(m); m != "" && !contains(models, m) {
			models = append(models, m)
		}
	}
	if notify == nil {
		notify = func(string) {}
	}
	return retrier{models: models, notify: notify, sleep: sleepCtx, jitter: rand.Float64, now: time.Now}
}

// ModelList splits a comma-separated list of model names, such as
// OPENAI_FALLBACK_MODELS.
func ModelList(s string) []string {
	var out []string
	for _, m := range strings.Split(s, ",") {
		if m = strings.TrimSpace(m); m != "" {
			out = append(out, m)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Complete asks the model, retrying what may pass and falling back to the
// next model when one fails for good. Once a fallback has answered, later
// requests start from it, so a session does not pay for a dead model at
// every step.
func (c *OpenAIClient) Complete(ctx context.Context, msgs []Message, onText func(string)) (Reply, error) {
	return c.images.complete(ctx, msgs, onText, c.complete, c.retry.notify)
}

// complete is Complete for messages whose pictures the model takes
// (images.go decides).
func (c *OpenAIClient) complete(ctx context.Context, msgs []Message, onText func(string)) (Reply, error) {
	c.prefetchPrices()
	rt := &c.retry
	rt.mu.Lock()
	start := rt.current
	rt.mu.Unlock()
	n := len(rt.models)
	var err error
	for i := 0; i < n; i++ {
		idx := (start + i) % n
		model := rt.models[idx]
		if i > 0 {
			rt.notify(fmt.Sprintf("falling back to model %s (%s)", model, shortReason(err)))
		}
		var r Reply
		r, err = c.completeModel(ctx, model, msgs, onText)
		if err == nil {
			rt.mu.Lock()
			rt.current = idx
			rt.mu.Unlock()
			return r, nil
		}
		if ctx.Err() != nil || !classifyAt(err, rt.now()).Class.Fallback() {
			return Reply{}, err
		}
	}
	return Reply{}, err
}

// completeModel makes up to maxAttempts attempts with one model. The error
// it returns is a *CallError, or the context's error.
func (c *OpenAIClient) completeModel(ctx context.Context, model string, msgs []Message, onText func(string)) (Reply, error) {
	rt := &c.retry
	shown := false
	show := onText
	if onText != nil {
		show = func(s string) {
			shown = true
			onText(s)
		}
	}
	for n := 1; ; n++ {
		r, err := c.attempt(ctx, model, msgs, show)
		if err == nil {
			c.price(ctx, model, &r)
			return r, nil
		}
		if ctx.Err() != nil {
			return Reply{}, ctx.Err()
		}
		v := classifyAt(err, rt.now())
		if !shown && (c.dropEffort(model, v) || c.dropFormat(ctx, model, v)) {
			n--
			continue
		}
		if shown {
			if v.Class.Retryable() {
				err = fmt.Errorf("%w (%v)", ErrCutAfterText, err)
			}
			return Reply{}, &CallError{Model: model, Attempts: n, Err: err}
		}
		if !v.Class.Retryable() || n >= maxAttempts {
			return Reply{}, &CallError{Model: model, Attempts: n, Err: err}
		}
		wait := backoff(n, rt.jitter())
		if v.HasRetryAfter {
			if v.RetryAfter > maxRetryAfter {
				return Reply{}, &CallError{Model: model, Attempts: n, Err: err, Note: "the server asks to wait " + v.RetryAfter.String()}
			}
			wait = v.RetryAfter
		}
		rt.notify(fmt.Sprintf("retrying in %s (%d/%d): %s", fmtWait(wait), n+1, maxAttempts, v.Reason))
		if err := rt.sleep(ctx, wait); err != nil {
			return Reply{}, err
		}
	}
}

// backoff is the wait after the nth failed attempt: exponential, capped,
// with ±20% jitter so that many clients do not retry in step.
func backoff(n int, jitter float64) time.Duration {
	d := backoffBase << (n - 1)
	if d > backoffMax || d <= 0 {
		d = backoffMax
	}
	return time.Duration(float64(d) * (0.8 + 0.4*jitter))
}

// fmtWait shows a wait the way a person reads it: "1.5s", "8s".
func fmtWait(d time.Duration) string {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func statusReason(code int) string {
	switch {
	case code == http.StatusTooManyRequests:
		return "429 rate limited"
	case http.StatusText(code) != "":
		return fmt.Sprintf("%d %s", code, strings.ToLower(http.StatusText(code)))
	case code >= 500:
		return fmt.Sprintf("%d server error", code)
	}
	return strconv.Itoa(code)
}

// shortReason says in a few words why a model failed, for the fallback line.
func shortReason(err error) string {
	var ce *CallError
	if errors.As(err, &ce) {
		if v := classifyAt(ce.Err, time.Time{}); v.Reason != "" {
			return ce.Model + ": " + v.Reason
		}
		return ce.Model + " failed"
	}
	return "the model failed"
}

// retryAfter reads how long the server asks to wait: retry-after-ms, or
// Retry-After in seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if d, ok := scaled(v, time.Millisecond); ok {
			return d, true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if d, ok := scaled(v, time.Second); ok {
		return d, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// maxWaitShown caps an absurd Retry-After, which is refused anyway, so
// that it cannot overflow a Duration.
const maxWaitShown = 24 * time.Hour

// scaled parses a non-negative number of units.
func scaled(v string, unit time.Duration) (time.Duration, bool) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || f < 0 {
		return 0, false
	}
	if f*float64(unit) > float64(maxWaitShown) {
		return maxWaitShown, true
	}
	return time.Duration(f * float64(unit)), true
}
