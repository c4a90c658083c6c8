package serve

import (
	"strings"
	"testing"
)

func TestDecoders(t *testing.T) {
	tests := []struct {
		name    string
		decode  func([]byte) (any, error)
		body    string
		want    any
		wantErr string
	}{
		{"create empty", create, ``, createRequest{}, ""},
		{"create model", create, `{"model":" m1 "}`, createRequest{Model: "m1"}, ""},
		{"create unknown field", create, `{"modle":"m1"}`, nil, "unknown field"},
		{"create two lines", create, `{"model":"a\nb"}`, nil, "one line"},
		{"message", message, `{"text":"hi"}`, "hi", ""},
		{"message blank", message, `{"text":"  "}`, nil, `"text" is missing`},
		{"message missing", message, `{}`, nil, `"text" is missing`},
		{"message empty body", message, ``, nil, "body is empty"},
		{"message array", message, `["hi"]`, nil, "not the JSON object"},
		{"message trailing", message, `{"text":"a"}{"text":"b"}`, nil, "more than one"},
		{"message wrong type", message, `{"text":3}`, nil, "not the JSON object"},
		{"allow", decision, `{"decision":"allow"}`, "allow", ""},
		{"always", decision, `{"decision":"always"}`, "always", ""},
		{"deny with message", decision, `{"decision":"deny","message":" no "}`, "deny:no", ""},
		{"bad decision", decision, `{"decision":"maybe"}`, nil, `must be "allow", "deny", "always" or "always_project"`},
		{"fork", fork, `{"turn":2}`, 2, ""},
		{"fork zero", fork, `{"turn":0}`, nil, "1 or more"},
		{"fork missing", fork, `{}`, nil, `"turn" is missing`},
		{"fork negative", fork, `{"turn":-1}`, nil, "1 or more"},
		{"fork fraction", fork, `{"turn":1.5}`, nil, "not the JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.decode([]byte(tt.body))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error is not one line: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func create(b []byte) (any, error) {
	r, err := decodeCreate(b)
	return r, err
}

func message(b []byte) (any, error) {
	r, err := decodeMessage(b)
	return r.Text, err
}

func decision(b []byte) (any, error) {
	d, err := decodeDecision(b)
	switch {
	case err != nil:
		return nil, err
	case d.Always && d.Allow:
		return "always", nil
	case d.Allow:
		return "allow", nil
	case d.Message != "":
		return "deny:" + d.Message, nil
	}
	return "deny", nil
}

func fork(b []byte) (any, error) {
	n, err := decodeFork(b)
	return n, err
}
