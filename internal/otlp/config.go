// Package otlp exports traces and metrics over OTLP/HTTP, configured by the
// standard OTEL_* variables. It encodes the two messages aci sends by hand
// (JSON as the OTLP spec maps it, or protobuf through protowire) so that a
// run that exports nothing links no SDK and pays nothing at start-up.
package otlp

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Protocol is how the requests are encoded.
type Protocol string

// The protocols OTLP/HTTP defines (gRPC is not spoken here).
const (
	ProtoBuf Protocol = "http/protobuf"
	JSON     Protocol = "http/json"
)

// Config is what the OTEL_* variables say.
type Config struct {
	Traces, Metrics string // the full URLs; "" sends none of that signal
	Headers         map[string]string
	Protocol        Protocol
	Timeout         time.Duration
	Service         string
	Resource        []KV // OTEL_RESOURCE_ATTRIBUTES
}

// FromEnv reads the configuration; ok is false when nothing is to be
// exported (no endpoint set, the SDK disabled, or both exporters "none").
// getenv is the process environment only: a workspace's .env must not
// send a session's activity to a server it names.
func FromEnv(getenv func(string) string) (cfg Config, ok bool, err error) {
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		return cfg, false, nil
	}
	base := getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
	signal := func(name, path string) (string, error) {
		if getenv("OTEL_"+strings.ToUpper(name)+"_EXPORTER") == "none" {
			return "", nil
		}
		if u := getenv("OTEL_EXPORTER_OTLP_" + strings.ToUpper(name) + "_ENDPOINT"); u != "" {
			return checkURL(u)
		}
		if base == "" {
			return "", nil
		}
		u, err := checkURL(base)
		if err != nil {
			return "", err
		}
		return strings.TrimSuffix(u, "/") + path, nil
	}
	if cfg.Traces, err = signal("traces", "/v1/traces"); err != nil {
		return cfg, false, err
	}
	if cfg.Metrics, err = signal("metrics", "/v1/metrics"); err != nil {
		return cfg, false, err
	}
	if cfg.Traces == "" && cfg.Metrics == "" {
		return cfg, false, nil
	}
	switch p := getenv("OTEL_EXPORTER_OTLP_PROTOCOL"); p {
	case "", string(ProtoBuf):
		cfg.Protocol = ProtoBuf
	case string(JSON):
		cfg.Protocol = JSON
	default:
		return cfg, false, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=%s: aci speaks http/protobuf and http/json", p)
	}
	cfg.Timeout = 10 * time.Second
	if t := getenv("OTEL_EXPORTER_OTLP_TIMEOUT"); t != "" {
		ms, err := strconv.Atoi(t)
		if err != nil || ms <= 0 {
			return cfg, false, fmt.Errorf("OTEL_EXPORTER_OTLP_TIMEOUT=%s: want milliseconds", t)
		}
		cfg.Timeout = time.Duration(ms) * time.Millisecond
	}
	cfg.Headers = pairs(getenv("OTEL_EXPORTER_OTLP_HEADERS"))
	for _, kv := range splitPairs(getenv("OTEL_RESOURCE_ATTRIBUTES")) {
		cfg.Resource = append(cfg.Resource, String(kv[0], kv[1]))
	}
	cfg.Service = getenv("OTEL_SERVICE_NAME")
	if cfg.Service == "" {
		cfg.Service = "aci"
	}
	return cfg, true, nil
}

func checkURL(u string) (string, error) {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return "", fmt.Errorf("OTLP endpoint %q: want an http or https URL", u)
	}
	return u, nil
}

// pairs reads "k=v,k2=v2" with URL-encoded values, as the spec says.
func pairs(s string) map[string]string {
	out := map[string]string{}
	for _, kv := range splitPairs(s) {
		out[kv[0]] = kv[1]
	}
	return out
}

func splitPairs(s string) [][2]string {
	var out [][2]string
	for _, item := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(item, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			continue
		}
		if dv, err := url.QueryUnescape(strings.TrimSpace(v)); err == nil {
			v = dv
		}
		out = append(out, [2]string{k, strings.TrimSpace(v)})
	}
	return out
}
