package outschema

import (
	"strings"
	"testing"
)

const person = `{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0}},"required":["name","age"],"additionalProperties":false}`

func TestParseRefusesWhatIsNotASchema(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"type":`, "not JSON"},
		{`[1,2]`, "a schema is an object"},
		{`{"type":"strin"}`, "not a valid JSON Schema"},
		{`{"type":"object","required":"name"}`, "not a valid JSON Schema"},
		{`{"minimum":"three"}`, "not a valid JSON Schema"},
		{`{"$schema":"https://example.com/my-draft"}`, "aci checks JSON Schema 2020-12"},
		{`{"$ref":"https://example.com/s.json"}`, "$refs must point inside the file"},
		{`{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`, "loop"},
		{`{"pattern":"(["}`, "not a valid JSON Schema"},
	} {
		_, err := Parse([]byte(c.in), "s")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%s) = %v, want an error with %q", c.in, err, c.want)
		}
	}
}

func TestCheck(t *testing.T) {
	s, err := Parse([]byte(person), "my person!")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name() != "my_person_" || !s.Strict() {
		t.Errorf("name %q strict %v", s.Name(), s.Strict())
	}
	for _, c := range []struct{ in, want, problem string }{
		{`{"name":"Ada","age":36}`, `{"name":"Ada","age":36}`, ""},
		{"```json\n{\"name\": \"Ada\", \"age\": 36}\n```", `{"name":"Ada","age":36}`, ""},
		{"```\n{\"name\": \"Ada\", \"age\": 36}```", `{"name":"Ada","age":36}`, ""},
		{`{"name":"Ada"}`, "", "age"},
		{`{"name":"Ada","age":-1}`, "", "minimum"},
		{`{"name":"Ada","age":36,"x":1}`, "", "x"},
		{`Here it is: {"name":"Ada","age":36}`, "", "not JSON"},
		{`{"name":"Ada","age":36} {}`, "", "not one JSON value"},
		{``, "", "empty"},
	} {
		v, err := s.Check(c.in)
		if c.problem == "" {
			if err != nil || string(v) != c.want {
				t.Errorf("Check(%q) = %s, %v; want %s", c.in, v, err, c.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.problem) {
			t.Errorf("Check(%q) = %v, want a problem naming %q", c.in, err, c.problem)
		}
	}
}

func TestDraft7AndLooseSchemas(t *testing.T) {
	s, err := Parse([]byte(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"ok":{"type":"boolean"}}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	if s.Strict() || s.Name() != "answer" {
		t.Errorf("strict %v name %q", s.Strict(), s.Name())
	}
	if _, err := s.Check(`{"ok":"yes"}`); err == nil {
		t.Error("a string passed for a boolean")
	}
}
