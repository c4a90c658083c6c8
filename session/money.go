package session

import (
	"context"
	"fmt"
	"math"

	"github.com/aci-dev/aci/agent"
)

// Money is what a turn and its session cost in USD and what the prompt
// cache saved (docs/protocol.md §9); a cost is unknown when a request of it
// had no price.
type Money struct {
	TurnUSD, TurnSavedUSD       float64
	SessionUSD, SessionSavedUSD float64
	TurnKnown, SessionKnown     bool
}

// moneyOf is a turn's Money: the session's totals after it and before.
func moneyOf(after, before agent.Cost) Money {
	turn := after.Sub(before)
	return Money{TurnUSD: turn.USD, TurnSavedUSD: turn.SavedUSD, TurnKnown: turn.Known(),
		SessionUSD: after.USD, SessionSavedUSD: after.SavedUSD, SessionKnown: after.Known()}
}

// TotalCostUSD is the turn's cost for the headless result, nil when
// unknown.
func (m Money) TotalCostUSD() *float64 {
	if !m.TurnKnown {
		return nil
	}
	v := math.Round(m.TurnUSD*1e8) / 1e8
	return &v
}

// FormatUSD writes an amount as a person reads it: $0, $0.0031, $0.0118,
// $0.25, $1.24: a few cents keep four decimals, where one turn's cost lies.
func FormatUSD(v float64) string {
	switch {
	case v == 0:
		return "$0"
	case math.Abs(v) < 0.1:
		return fmt.Sprintf("$%.4f", v)
	case math.Abs(v) < 100:
		return fmt.Sprintf("$%.2f", v)
	}
	return fmt.Sprintf("$%.0f", v)
}

// Line is the money part of a turn's footer: "" when the turn's cost is
// unknown (the tokens say the rest) or nothing (a local server).
func (m Money) Line() string {
	if !m.TurnKnown || m.TurnUSD == 0 && m.SessionUSD == 0 {
		return ""
	}
	s := FormatUSD(m.TurnUSD)
	var more []string
	if m.SessionKnown && m.SessionUSD > m.TurnUSD+1e-9 {
		more = append(more, "session "+FormatUSD(m.SessionUSD))
	}
	if m.TurnSavedUSD > 0 {
		more = append(more, "cache saved "+FormatUSD(m.TurnSavedUSD))
	}
	for i, x := range more {
		if i == 0 {
			s += " (" + x
		} else {
			s += ", " + x
		}
	}
	if len(more) > 0 {
		s += ")"
	}
	return s
}

// PriceHint says how to set a price for model, whose cost is unknown.
func PriceHint(model string) string {
	return fmt.Sprintf(`no price known for %s: tokens only. Set one in ~/.config/aci/settings.json: {"prices": {%q: {"input": 1.25, "cached_input": 0.125, "output": 10}}} (USD per million tokens)`, model, model)
}

// moneyState is what the session said about prices.
type moneyState struct {
	hinted bool       // PriceHint was said
	total  agent.Cost // the session's requests, for Info (the loop's Stats are its own goroutine's)
}

// priceHint counts a request's cost and publishes PriceHint once per
// session, at the first request that had no price.
func (s *Session) priceHint(u agent.Usage) {
	s.mu.Lock()
	s.money.total = s.money.total.Add(u.Cost)
	said := s.money.hinted
	s.money.hinted = s.money.hinted || u.Cost.Unpriced > 0
	s.mu.Unlock()
	if u.Cost.Unpriced == 0 {
		return
	}
	if !said {
		model := s.model
		if mc, ok := s.client.(interface{ Model() string }); ok {
			model = mc.Model()
		}
		text := PriceHint(model)
		if pc, ok := s.client.(pricer); ok {
			if _, known, _ := pc.PriceOf(context.Background(), model); known {
				text = "the server reported no token usage: the cost of this session is unknown"
			}
		}
		s.publish(Notice{Kind: "hint", Text: text})
	}
}

// pricer is a client that knows its models' prices (agent/pricing.go).
type pricer interface {
	PriceOf(ctx context.Context, model string) (p agent.Price, known, free bool)
}

// CostInfo is the session's cost for Info: nil USD when unknown.
type CostInfo struct {
	USD      *float64 `json:"usd"`
	SavedUSD float64  `json:"saved_usd"`
}

func costInfo(c agent.Cost) *CostInfo {
	ci := &CostInfo{SavedUSD: math.Round(c.SavedUSD*1e8) / 1e8}
	if c.Known() {
		v := math.Round(c.USD*1e8) / 1e8
		ci.USD = &v
	}
	return ci
}

// describeError is the one line for a failed turn, naming the endpoint and key
// variable of the model that failed (a provider's, agent/providers.go).
func (s *Session) describeError(err error) string {
	if c, ok := s.client.(interface{ Describe(error) string }); ok {
		return c.Describe(err)
	}
	return agent.Describe(err, s.f.cfg.Client.BaseURL, s.model)
}
