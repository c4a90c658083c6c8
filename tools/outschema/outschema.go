// Package outschema is --output-schema (docs/protocol.md §11): a JSON Schema
// (2020-12; draft-07 when the file declares it) read and checked once at
// start, and the model's final answer checked against it.
//
// The validator is github.com/google/jsonschema-go, which aci already
// links for MCP and which costs nothing at start: the other well-kept Go
// validator, santhosh-tekuri/jsonschema, compiles its meta-schemas in an
// init function (49 ms and 1.7 MB on every run of aci, schema or not). The
// meta-schemas a schema file is checked against are compiled here on first
// use only.
package outschema

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/aci-dev/aci/tools/jsonref"
)

// maxSchema bounds the schema file: it goes into the question.
const maxSchema = 256 << 10

// Schema is an output schema that was read and found to be JSON Schema.
type Schema struct {
	raw    json.RawMessage // the file's JSON, compacted
	rs     *jsonschema.Resolved
	name   string // for response_format: letters, digits, _ and -
	strict bool   // fit for OpenAI's strict structured outputs
}

// Load reads and checks the schema in path. The error says what is wrong
// in a person's words.
func Load(path string) (*Schema, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("--output-schema: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("--output-schema: %s is not a file", path)
	}
	if fi.Size() > maxSchema {
		return nil, fmt.Errorf("--output-schema: %s is over %d KB", path, maxSchema>>10)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--output-schema: %w", err)
	}
	s, err := Parse(data, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	if err != nil {
		return nil, fmt.Errorf("--output-schema %s: %w", path, err)
	}
	return s, nil
}

// Parse checks data as a JSON Schema; name names it in requests.
func Parse(data []byte, name string) (*Schema, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if dec.More() {
		return nil, errors.New("not JSON: more than one value")
	}
	switch doc.(type) {
	case map[string]any, bool:
	default:
		return nil, errors.New("not a JSON Schema: a schema is an object (or true/false)")
	}
	meta, err := metaFor(doc)
	if err != nil {
		return nil, err
	}
	if err := meta.Validate(doc); err != nil {
		return nil, fmt.Errorf("not a valid JSON Schema: %s", jsonref.Describe(err))
	}
	rs, err := jsonref.Resolve(data)
	if errors.Is(err, jsonref.ErrUnbounded) {
		return nil, errors.New("its $refs must point inside the file (\"#/$defs/...\") and must not loop back on themselves without descending")
	}
	if err != nil {
		return nil, fmt.Errorf("not a valid JSON Schema: %v", err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	return &Schema{raw: compact.Bytes(), rs: rs, name: wireName(name), strict: strictFit(doc)}, nil
}

// JSON is the schema as the file holds it, compacted.
func (s *Schema) JSON() json.RawMessage { return s.raw }

// Name names the schema in a request (response_format's json_schema.name).
func (s *Schema) Name() string { return s.name }

// Strict reports whether the schema keeps to the subset OpenAI's strict
// structured outputs take: every object closed (additionalProperties
// false) with all its properties required. Other providers ignore strict.
func (s *Schema) Strict() bool { return s.strict }

// Invalid is an answer that is not a JSON value valid against the schema.
type Invalid struct{ Problem string }

func (e *Invalid) Error() string { return e.Problem }

// Check reads answer as a JSON value, fenced in ```json … ``` or not, and
// validates it. It returns the value, compacted.
func (s *Schema) Check(answer string) (json.RawMessage, error) {
	text := Unfence(answer)
	if text == "" {
		return nil, &Invalid{"the answer is empty: it must be a JSON value"}
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, &Invalid{fmt.Sprintf("the answer is not JSON: %v", err)}
	}
	if dec.More() {
		return nil, &Invalid{"the answer is not one JSON value: something follows it"}
	}
	// The validator takes float64 numbers, as encoding/json makes them.
	var plain any
	if err := json.Unmarshal([]byte(text), &plain); err != nil {
		return nil, &Invalid{fmt.Sprintf("the answer is not JSON: %v", err)}
	}
	if err := s.rs.Validate(plain); err != nil {
		return nil, &Invalid{"the answer does not match the schema: " + jsonref.Describe(err)}
	}
	var out bytes.Buffer
	if err := json.Compact(&out, []byte(text)); err != nil {
		return nil, &Invalid{fmt.Sprintf("the answer is not JSON: %v", err)}
	}
	return out.Bytes(), nil
}

// fence is a reply that is one fenced block, as models often write JSON.
var fence = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?s)^```[A-Za-z0-9_-]*[ \t]*\n(.*?)\n?```$")
})

// Unfence returns text without a ``` fence around the whole of it.
func Unfence(text string) string {
	t := strings.TrimSpace(text)
	if m := fence().FindStringSubmatch(t); m != nil {
		return strings.TrimSpace(m[1])
	}
	return t
}

// wireName makes name fit response_format's: a-z, A-Z, 0-9, _ and -, at
// most 64.
func wireName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r < 128 && (r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
		if b.Len() == 64 {
			break
		}
	}
	if strings.Trim(b.String(), "_") == "" {
		return "answer"
	}
	return b.String()
}

// strictFit reports whether every object schema in doc is closed and
// requires all of its properties.
func strictFit(doc any) bool {
	fit := true
	var walk func(v any)
	walk = func(v any) {
		switch c := v.(type) {
		case map[string]any:
			if props, ok := c["properties"].(map[string]any); ok || c["type"] == "object" {
				if ap, ok := c["additionalProperties"].(bool); !ok || ap {
					fit = false
				}
				req := map[string]bool{}
				list, _ := c["required"].([]any)
				for _, r := range list {
					if s, ok := r.(string); ok {
						req[s] = true
					}
				}
				for k := range props {
					if !req[k] {
						fit = false
					}
				}
			}
			for _, e := range c {
				walk(e)
			}
		case []any:
			for _, e := range c {
				walk(e)
			}
		}
	}
	if _, ok := doc.(map[string]any); !ok {
		return false
	}
	walk(doc)
	return fit
}

// The meta-schemas, from github.com/google/jsonschema-go (MIT), as
// json-schema.org publishes them.
//
//go:embed meta
var metaFS embed.FS

const (
	draft2020 = "https://json-schema.org/draft/2020-12/schema"
	draft7    = "http://json-schema.org/draft-07/schema#"
)

var metas = sync.OnceValues(func() (map[string]*jsonschema.Resolved, error) {
	out := map[string]*jsonschema.Resolved{}
	for id, file := range map[string]string{draft2020: "meta/schema.json", draft7: "meta/draft7.json"} {
		s, err := metaFile(file)
		if err != nil {
			return nil, err
		}
		rs, err := s.Resolve(&jsonschema.ResolveOptions{Loader: metaLoader})
		if err != nil {
			return nil, fmt.Errorf("meta-schema %s: %w", id, err)
		}
		out[id] = rs
	}
	return out, nil
})

// metaFor is the meta-schema doc declares in $schema: 2020-12 when it
// declares none.
func metaFor(doc any) (*jsonschema.Resolved, error) {
	declared := draft2020
	if m, ok := doc.(map[string]any); ok {
		if v, ok := m["$schema"]; ok {
			s, _ := v.(string)
			declared = strings.TrimSuffix(s, "#")
		}
	}
	all, err := metas()
	if err != nil {
		return nil, err
	}
	switch declared {
	case draft2020:
		return all[draft2020], nil
	case "http://json-schema.org/draft-07/schema", "https://json-schema.org/draft-07/schema":
		return all[draft7], nil
	}
	return nil, fmt.Errorf("$schema %q: aci checks JSON Schema 2020-12 (%s) or draft-07", declared, draft2020)
}

func metaFile(name string) (*jsonschema.Schema, error) {
	data, err := metaFS.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("meta-schema %s: %w", name, err)
	}
	return &s, nil
}

// metaLoader serves the 2020-12 vocabularies the meta-schema refers to;
// nothing is fetched.
func metaLoader(uri *url.URL) (*jsonschema.Schema, error) {
	if rest, ok := strings.CutPrefix(uri.String(), "https://json-schema.org/draft/2020-12/meta/"); ok && !strings.ContainsAny(rest, "/.") {
		return metaFile("meta/meta/" + rest + ".json")
	}
	return nil, fmt.Errorf("%s is not one of the meta-schemas", uri)
}
