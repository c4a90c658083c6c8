package ui

import (
	"strings"
	"testing"

	"github.com/aci-dev/aci/agent"
)

func TestEffortCommand(t *testing.T) {
	client := agent.NewOpenAIClient(agent.ClientConfig{BaseURL: "https://api.openai.com/v1", Model: "gpt-5-mini"})
	var b strings.Builder
	r := &REPL{client: client, out: newRenderer(&b, false, false)}
	for _, tc := range []struct{ arg, want string }{
		{"", "reasoning effort: the model's default (/effort low|medium|high|default)\n"},
		{"extreme", "error: reasoning effort \"extreme\": want one of low, medium, high\n"},
		{"high", "reasoning effort: high\n"},
		{"", "reasoning effort: high (/effort low|medium|high|default)\n"},
		{"default", "reasoning effort: the model's default\n"},
	} {
		b.Reset()
		if r.command("effort", tc.arg) {
			t.Fatal("/effort left the REPL")
		}
		if b.String() != tc.want {
			t.Errorf("/effort %s: got %q, want %q", tc.arg, b.String(), tc.want)
		}
	}
	client.SetModel("gpt-4.1")
	b.Reset()
	r.command("effort", "low")
	if want := "reasoning effort: low (not sent to gpt-4.1, which takes none)\n"; b.String() != want || client.Effort() != "low" {
		t.Errorf("got %q (effort %q), want %q", b.String(), client.Effort(), want)
	}
}
