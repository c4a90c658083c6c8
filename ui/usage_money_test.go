package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/session"
)

func TestFooterShowsMoney(t *testing.T) {
	var b strings.Builder
	r := newRenderer(&b, false, false)
	r.beginTurn()
	r.event(session.Result{Outcome: session.Answered, Steps: 2, Duration: 1500 * time.Millisecond,
		Usage: session.Usage{PromptTokens: 10000, CachedTokens: 8000, CompletionTokens: 500},
		Money: session.Money{TurnUSD: 0.0017, TurnSavedUSD: 0.0018, TurnKnown: true, SessionUSD: 0.0051, SessionKnown: true}})
	r.endTurn()
	if want := "· 2 steps · 10k in (8.0k cached) / 500 out · $0.0017 (session $0.0051, cache saved $0.0018) · 1.5s\n"; !strings.HasSuffix(b.String(), want) {
		t.Errorf("got %q, want it to end %q", b.String(), want)
	}
}

func TestUsageMoney(t *testing.T) {
	client := agent.NewOpenAIClient(agent.ClientConfig{BaseURL: "https://api.example/v1", Model: "my-model"})
	r := &REPL{client: client}
	if got := r.usageMoney(agent.Cost{USD: 0.25, SavedUSD: 0.5}); len(got) != 1 || got[0] != "  cost               $0.25 this session, the prompt cache saved $0.50" {
		t.Errorf("known: %q", got)
	}
	got := strings.Join(r.usageMoney(agent.Cost{USD: 0.25, Unpriced: 3}), "\n")
	for _, want := range []string{"unknown (3 requests without a price; the others $0.25)", `no price known for my-model`, `"prices": {"my-model":`} {
		if !strings.Contains(got, want) {
			t.Errorf("unknown: %q lacks %q", got, want)
		}
	}
}
