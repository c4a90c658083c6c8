package ui

import (
	"strings"
	"testing"
	"time"

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
