package fakeai

//go:generate go run ./gen

import (
	"bytes"
	_ "embed"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// chatSchemas is the subset of the official spec the fake checks against;
// committed so tests run without shared/ (regenerate: go generate).
//
//go:embed testdata/chat_schemas.json
var chatSchemas []byte

const schemaURL = "fakeai:///chat_schemas.json"

type validators struct {
	request, response, chunk, errorBody *jsonschema.Schema
	requestFields                       map[string]bool
}

var (
	loadOnce sync.Once
	loaded   *validators
	loadErr  error
)

// load compiles the embedded schemas once per process (~0.1 s).
func load() (*validators, error) {
	loadOnce.Do(func() { loaded, loadErr = compileSchemas(chatSchemas) })
	return loaded, loadErr
}

func compileSchemas(data []byte) (*validators, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("fakeai: parse schemas: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	v := &validators{}
	for name, dst := range map[string]**jsonschema.Schema{
		"CreateChatCompletionRequest":        &v.request,
		"CreateChatCompletionResponse":       &v.response,
		"CreateChatCompletionStreamResponse": &v.chunk,
		"ErrorResponse":                      &v.errorBody,
	} {
		s, err := c.Compile(schemaURL + "#/components/schemas/" + name)
		if err != nil {
			return nil, fmt.Errorf("fakeai: compile %s: %w", name, err)
		}
		*dst = s
	}
	schemas := doc.(map[string]any)["components"].(map[string]any)["schemas"].(map[string]any)
	v.requestFields = map[string]bool{}
	collectFields(schemas, schemas["CreateChatCompletionRequest"], v.requestFields)
	return v, nil
}

// collectFields gathers the property names a schema declares through allOf
// and $ref, for the top-level typo check the spec itself does not make.
func collectFields(all map[string]any, s any, into map[string]bool) {
	obj, _ := s.(map[string]any)
	if ref, ok := obj["$ref"].(string); ok {
		collectFields(all, all[strings.TrimPrefix(ref, refPrefix)], into)
	}
	if props, ok := obj["properties"].(map[string]any); ok {
		for k := range props {
			into[k] = true
		}
	}
	if list, ok := obj["allOf"].([]any); ok {
		for _, e := range list {
			collectFields(all, e, into)
		}
	}
}

// validate returns the parsed instance so callers can check more.
func validate(body []byte, pick func(*validators) *jsonschema.Schema, what string) (any, error) {
	v, err := load()
	if err != nil {
		return nil, err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %w", what, err)
	}
	if err := pick(v).Validate(inst); err != nil {
		return nil, fmt.Errorf("%s violates the OpenAI spec: %w", what, err)
	}
	return inst, nil
}

// ValidateRequest checks a POST /chat/completions body against
// CreateChatCompletionRequest. Because that schema allows unknown
// properties, it also rejects top-level fields the spec does not declare,
// which catches misspellings such as "max_token" or "stream_option".
func ValidateRequest(body []byte) error {
	inst, err := validate(body, func(v *validators) *jsonschema.Schema { return v.request }, "request")
	if err != nil {
		return err
	}
	v, _ := load()
	obj, _ := inst.(map[string]any)
	var unknown []string
	for k := range obj {
		if !v.requestFields[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Errorf("request has fields the OpenAI spec does not define (misspelt?): %s", strings.Join(unknown, ", "))
	}
	return nil
}

// ValidateResponse checks a non-streaming reply body against
// CreateChatCompletionResponse.
func ValidateResponse(body []byte) error {
	_, err := validate(body, func(v *validators) *jsonschema.Schema { return v.response }, "response")
	return err
}

// ValidateStreamChunk checks the JSON of one SSE data line (without the
// "data: " prefix) against CreateChatCompletionStreamResponse.
func ValidateStreamChunk(chunk []byte) error {
	_, err := validate(chunk, func(v *validators) *jsonschema.Schema { return v.chunk }, "stream chunk")
	return err
}

// ValidateErrorBody checks an error reply body against ErrorResponse.
func ValidateErrorBody(body []byte) error {
	_, err := validate(body, func(v *validators) *jsonschema.Schema { return v.errorBody }, "error body")
	return err
}
