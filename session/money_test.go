package session

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aci-dev/aci/agent"
)

func TestMoneyLine(t *testing.T) {
	cases := []struct {
		after, before agent.Cost
		want          string
	}{
		{agent.Cost{USD: 0.0017, SavedUSD: 0.0018}, agent.Cost{}, "$0.0017 (cache saved $0.0018)"},
		{agent.Cost{USD: 0.5, SavedUSD: 0.2}, agent.Cost{USD: 0.25, SavedUSD: 0.1}, "$0.25 (session $0.50, cache saved $0.10)"},
		{agent.Cost{USD: 0.3}, agent.Cost{USD: 0.1}, "$0.20 (session $0.30)"},
		{agent.Cost{}, agent.Cost{}, ""},                                                // a local server
		{agent.Cost{USD: 0.1, Unpriced: 1}, agent.Cost{USD: 0.1}, ""},                   // unknown
		{agent.Cost{USD: 0.3, Unpriced: 1}, agent.Cost{USD: 0.1, Unpriced: 1}, "$0.20"}, // the session's is unknown
		{agent.Cost{USD: 123.4}, agent.Cost{}, "$123"},
	}
	for _, c := range cases {
		if got := moneyOf(c.after, c.before).Line(); got != c.want {
			t.Errorf("%+v - %+v: %q, want %q", c.after, c.before, got, c.want)
		}
	}
}

func TestResultTotalCostUSD(t *testing.T) {
	for _, c := range []struct {
		m    Money
		want string
	}{
		{moneyOf(agent.Cost{USD: 0.0017}, agent.Cost{}), `"total_cost_usd":0.0017`},
		{moneyOf(agent.Cost{}, agent.Cost{}), `"total_cost_usd":0`},
		{moneyOf(agent.Cost{Unpriced: 2}, agent.Cost{}), `"total_cost_usd":null`},
	} {
		b, err := json.Marshal(Result{Outcome: Answered, Money: c.m})
		if err != nil || !strings.Contains(string(b), c.want) {
			t.Errorf("%s, %v: want %s", b, err, c.want)
		}
	}
}
