package otlp

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// KV is one attribute: a key and a string, int64, float64 or bool value.
type KV struct {
	Key   string
	Value any
}

// String makes a string attribute.
func String(k, v string) KV { return KV{k, v} }

// Int makes an integer attribute.
func Int(k string, v int64) KV { return KV{k, v} }

// Float makes a floating-point attribute.
func Float(k string, v float64) KV { return KV{k, v} }

// Bool makes a boolean attribute.
func Bool(k string, v bool) KV { return KV{k, v} }

// NewTraceID is a random trace id.
func NewTraceID() (id [16]byte) { rand.Read(id[:]); return id }

// NewSpanID is a random span id.
func NewSpanID() (id [8]byte) { rand.Read(id[:]); return id }

// SpanKind is OTLP's kind of a span.
type SpanKind int

// The kinds aci uses.
const (
	KindInternal SpanKind = 1
	KindClient   SpanKind = 3
)

// Span is one finished span.
type Span struct {
	Trace      [16]byte
	ID, Parent [8]byte
	Name       string
	Kind       SpanKind
	Start, End time.Time
	Attrs      []KV
	Error      string // non-empty: the span's status is an error with this message
}

// Metric is one cumulative, monotonic sum and its points.
type Metric struct {
	Name, Description, Unit string
	Points                  []Point
}

// Point is one value of a sum for one set of attributes.
type Point struct {
	Attrs       []KV
	Start, Time time.Time
	Value       any // int64 or float64
}

func nanos(t time.Time) uint64 { return uint64(t.UnixNano()) }

func hexOf(b []byte) string { return hex.EncodeToString(b) }

func hasParent(s *Span) bool { return s.Parent != [8]byte{} }
