package otlp

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"strconv"
)

// The two requests, ExportTraceServiceRequest and
// ExportMetricsServiceRequest, written in either encoding. Field numbers
// are those of opentelemetry-proto's trace/v1, metrics/v1 and common/v1
// (checked against the official generated types in the tests).

const scopeName = "aci"

// TracesJSON is the OTLP/JSON form: ids in hex, 64-bit numbers as strings,
// enums as numbers.
func TracesJSON(cfg Config, spans []Span) []byte {
	js := make([]map[string]any, 0, len(spans))
	for i := range spans {
		s := &spans[i]
		m := map[string]any{
			"traceId": hexOf(s.Trace[:]), "spanId": hexOf(s.ID[:]), "name": s.Name, "kind": int(s.Kind),
			"startTimeUnixNano": strconv.FormatUint(nanos(s.Start), 10),
			"endTimeUnixNano":   strconv.FormatUint(nanos(s.End), 10),
			"attributes":        attrsJSON(s.Attrs),
		}
		if hasParent(s) {
			m["parentSpanId"] = hexOf(s.Parent[:])
		}
		if s.Error != "" {
			m["status"] = map[string]any{"code": 2, "message": s.Error}
		}
		js = append(js, m)
	}
	b, _ := json.Marshal(map[string]any{"resourceSpans": []any{map[string]any{
		"resource":   map[string]any{"attributes": attrsJSON(cfg.resource())},
		"scopeSpans": []any{map[string]any{"scope": map[string]any{"name": scopeName}, "spans": js}},
	}}})
	return b
}

// MetricsJSON is the OTLP/JSON form of cumulative sums.
func MetricsJSON(cfg Config, metrics []Metric) []byte {
	ms := make([]map[string]any, 0, len(metrics))
	for _, m := range metrics {
		pts := make([]map[string]any, 0, len(m.Points))
		for _, p := range m.Points {
			pt := map[string]any{
				"attributes":        attrsJSON(p.Attrs),
				"startTimeUnixNano": strconv.FormatUint(nanos(p.Start), 10),
				"timeUnixNano":      strconv.FormatUint(nanos(p.Time), 10),
			}
			switch v := p.Value.(type) {
			case float64:
				pt["asDouble"] = v
			case int64:
				pt["asInt"] = strconv.FormatInt(v, 10)
			}
			pts = append(pts, pt)
		}
		ms = append(ms, map[string]any{"name": m.Name, "description": m.Description, "unit": m.Unit,
			"sum": map[string]any{"dataPoints": pts, "aggregationTemporality": 2, "isMonotonic": true}})
	}
	b, _ := json.Marshal(map[string]any{"resourceMetrics": []any{map[string]any{
		"resource":     map[string]any{"attributes": attrsJSON(cfg.resource())},
		"scopeMetrics": []any{map[string]any{"scope": map[string]any{"name": scopeName}, "metrics": ms}},
	}}})
	return b
}

func attrsJSON(kvs []KV) []any {
	out := make([]any, 0, len(kvs))
	for _, kv := range kvs {
		var v map[string]any
		switch x := kv.Value.(type) {
		case string:
			v = map[string]any{"stringValue": x}
		case int64:
			v = map[string]any{"intValue": strconv.FormatInt(x, 10)}
		case float64:
			v = map[string]any{"doubleValue": x}
		case bool:
			v = map[string]any{"boolValue": x}
		default:
			continue
		}
		out = append(out, map[string]any{"key": kv.Key, "value": v})
	}
	return out
}

func (c Config) resource() []KV {
	return append([]KV{String("service.name", c.Service)}, c.Resource...)
}

// pb is a protobuf message being written.
type pb []byte

func (b pb) tag(field, wire int) pb { return binary.AppendUvarint(b, uint64(field<<3|wire)) }

func (b pb) varint(field int, v uint64) pb {
	return binary.AppendUvarint(b.tag(field, 0), v)
}

func (b pb) fixed64(field int, v uint64) pb {
	return binary.LittleEndian.AppendUint64(b.tag(field, 1), v)
}

func (b pb) bytes(field int, v []byte) pb {
	b = binary.AppendUvarint(b.tag(field, 2), uint64(len(v)))
	return append(b, v...)
}

func (b pb) str(field int, v string) pb {
	if v == "" {
		return b
	}
	return b.bytes(field, []byte(v))
}

func kvPB(kv KV) pb {
	var v pb
	switch x := kv.Value.(type) {
	case string:
		v = v.bytes(1, []byte(x)) // string_value, present even when empty
	case bool:
		n := uint64(0)
		if x {
			n = 1
		}
		v = v.varint(2, n)
	case int64:
		v = v.varint(3, uint64(x))
	case float64:
		v = v.fixed64(4, math.Float64bits(x))
	default:
		return nil
	}
	return pb(nil).str(1, kv.Key).bytes(2, v)
}

func attrsPB(b pb, field int, kvs []KV) pb {
	for _, kv := range kvs {
		if m := kvPB(kv); m != nil {
			b = b.bytes(field, m)
		}
	}
	return b
}

// TracesProto is the protobuf form.
func TracesProto(cfg Config, spans []Span) []byte {
	var scope pb
	scope = scope.bytes(1, pb(nil).str(1, scopeName))
	for i := range spans {
		s := &spans[i]
		var m pb
		m = m.bytes(1, s.Trace[:]).bytes(2, s.ID[:])
		if hasParent(s) {
			m = m.bytes(4, s.Parent[:])
		}
		m = m.str(5, s.Name).varint(6, uint64(s.Kind)).fixed64(7, nanos(s.Start)).fixed64(8, nanos(s.End))
		m = attrsPB(m, 9, s.Attrs)
		if s.Error != "" {
			m = m.bytes(15, pb(nil).str(2, s.Error).varint(3, 2))
		}
		scope = scope.bytes(2, m)
	}
	rs := pb(nil).bytes(1, attrsPB(nil, 1, cfg.resource())).bytes(2, scope)
	return pb(nil).bytes(1, rs)
}

// MetricsProto is the protobuf form.
func MetricsProto(cfg Config, metrics []Metric) []byte {
	var scope pb
	scope = scope.bytes(1, pb(nil).str(1, scopeName))
	for _, m := range metrics {
		var sum pb
		for _, p := range m.Points {
			var pt pb
			pt = pt.fixed64(2, nanos(p.Start)).fixed64(3, nanos(p.Time))
			switch v := p.Value.(type) {
			case float64:
				pt = pt.fixed64(4, math.Float64bits(v))
			case int64:
				pt = pt.fixed64(6, uint64(v)) // sfixed64 as_int
			}
			pt = attrsPB(pt, 7, p.Attrs)
			sum = sum.bytes(1, pt)
		}
		sum = sum.varint(2, 2).varint(3, 1) // cumulative, monotonic
		scope = scope.bytes(2, pb(nil).str(1, m.Name).str(2, m.Description).str(3, m.Unit).bytes(7, sum))
	}
	rm := pb(nil).bytes(1, attrsPB(nil, 1, cfg.resource())).bytes(2, scope)
	return pb(nil).bytes(1, rm)
}
