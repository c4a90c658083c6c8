package otlp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"sort"
	"strings"
	"sync"
	"time"
)

// Bounds: what waits to be sent stays small, and nothing waits on the
// collector but the exporter's own goroutine.
const (
	maxPending    = 2048 // spans kept while the collector is slow; more are dropped
	batchSize     = 256
	flushEvery    = 2 * time.Second
	shutdownLimit = 2 * time.Second // the most exit waits for a last send
)

// Exporter sends spans and cumulative metrics in the background. Span and
// Add never block: a slow or unreachable collector costs a turn nothing.
type Exporter struct {
	cfg    Config
	client *http.Client
	onErr  func(error)
	start  time.Time

	mu       sync.Mutex
	spans    []Span
	dropped  int
	counters map[string]*counter
	failed   bool // onErr was told; told again only after a success

	kick chan struct{}
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

type counter struct {
	name, desc, unit string
	attrs            []KV
	value            any // int64 or float64
}

// New starts an exporter; onErr hears of a failed send once (and again
// after the collector answered in between). It may be nil.
func New(cfg Config, onErr func(error)) *Exporter {
	e := &Exporter{
		cfg: cfg, onErr: onErr, start: time.Now(),
		client:   &http.Client{Timeout: cfg.Timeout},
		counters: map[string]*counter{},
		kick:     make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}
	go e.loop()
	return e
}

// Span queues a finished span.
func (e *Exporter) Span(s Span) {
	if e == nil || e.cfg.Traces == "" {
		return
	}
	e.mu.Lock()
	if len(e.spans) >= maxPending {
		e.dropped++
	} else {
		e.spans = append(e.spans, s)
	}
	full := len(e.spans) >= batchSize
	e.mu.Unlock()
	if full {
		e.poke()
	}
}

// Add adds v (int64 or float64) to the cumulative sum name for attrs.
func (e *Exporter) Add(name, desc, unit string, v any, attrs ...KV) {
	if e == nil || e.cfg.Metrics == "" {
		return
	}
	sort.Slice(attrs, func(i, j int) bool { return attrs[i].Key < attrs[j].Key })
	var key strings.Builder
	key.WriteString(name)
	for _, a := range attrs {
		fmt.Fprintf(&key, "\x00%s=%v", a.Key, a.Value)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.counters[key.String()]
	if c == nil {
		c = &counter{name: name, desc: desc, unit: unit, attrs: attrs}
		e.counters[key.String()] = c
	}
	switch x := v.(type) {
	case int64:
		n, _ := c.value.(int64)
		c.value = n + x
	case float64:
		f, _ := c.value.(float64)
		c.value = f + x
	}
}

// Flush asks for a send soon (after a turn, say); it does not wait.
func (e *Exporter) Flush() {
	if e != nil {
		e.poke()
	}
}

func (e *Exporter) poke() {
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

// Shutdown sends what is left, waiting at most a short bound.
func (e *Exporter) Shutdown() {
	if e == nil {
		return
	}
	e.once.Do(func() { close(e.stop) })
	select {
	case <-e.done:
	case <-time.After(shutdownLimit):
	}
}

func (e *Exporter) loop() {
	defer close(e.done)
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-e.kick:
		case <-e.stop:
			ctx, cancel := context.WithTimeout(context.Background(), shutdownLimit)
			e.send(ctx)
			cancel()
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), e.cfg.Timeout)
		e.send(ctx)
		cancel()
	}
}

func (e *Exporter) send(ctx context.Context) {
	e.mu.Lock()
	spans := e.spans
	e.spans = nil
	metrics := e.metricsLocked()
	e.mu.Unlock()
	for len(spans) > 0 {
		n := min(len(spans), batchSize)
		e.post(ctx, e.cfg.Traces, spans[:n], nil)
		spans = spans[n:]
	}
	if len(metrics) > 0 {
		e.post(ctx, e.cfg.Metrics, nil, metrics)
	}
}

// metricsLocked is every sum as it stands: cumulative, so a lost send
// loses nothing but that moment.
func (e *Exporter) metricsLocked() []Metric {
	byName := map[string]*Metric{}
	var names []string
	now := time.Now()
	for _, c := range e.counters {
		m := byName[c.name]
		if m == nil {
			m = &Metric{Name: c.name, Description: c.desc, Unit: c.unit}
			byName[c.name] = m
			names = append(names, c.name)
		}
		m.Points = append(m.Points, Point{Attrs: c.attrs, Start: e.start, Time: now, Value: c.value})
	}
	sort.Strings(names)
	out := make([]Metric, 0, len(names))
	for _, n := range names {
		out = append(out, *byName[n])
	}
	return out
}

func (e *Exporter) post(ctx context.Context, url string, spans []Span, metrics []Metric) {
	var body []byte
	ctype := "application/x-protobuf"
	switch {
	case spans != nil && e.cfg.Protocol == JSON:
		body, ctype = TracesJSON(e.cfg, spans), "application/json"
	case spans != nil:
		body = TracesProto(e.cfg, spans)
	case e.cfg.Protocol == JSON:
		body, ctype = MetricsJSON(e.cfg, metrics), "application/json"
	default:
		body = MetricsProto(e.cfg, metrics)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		e.fail(err)
		return
	}
	req.Header.Set("Content-Type", ctype)
	for k, v := range e.cfg.Headers {
		req.Header.Set(k, v)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		var ue *neturl.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		e.fail(fmt.Errorf("telemetry: cannot send to %s: %w", redacted(url), err))
		return
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		e.fail(fmt.Errorf("telemetry: %s answered %s", redacted(url), resp.Status))
		return
	}
	e.mu.Lock()
	e.failed = false
	e.mu.Unlock()
}

func (e *Exporter) fail(err error) {
	e.mu.Lock()
	told := e.failed
	e.failed = true
	e.mu.Unlock()
	if !told && e.onErr != nil {
		e.onErr(err)
	}
}

// redacted is u without a password it may carry.
func redacted(u string) string {
	if p, err := neturl.Parse(u); err == nil {
		return p.Redacted()
	}
	return "the collector"
}
