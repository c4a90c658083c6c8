package session

import (
	"context"
	"fmt"
	"sync"

	"github.com/aci-dev/aci/agent"
)

// Budgets (docs/protocol.md §11). Steps are the agent's (agent.Config.MaxSteps);
// the turns and the money are the session's: a question past either is
// not sent, and a turn that spends the budget ends before its next model
// request. The money counts the session's agents (agent windows) too.

// Limits are the budgets every session of a factory keeps; zero is none.
type Limits struct {
	MaxTurns     int     // questions a session takes (a resumed one's earlier turns count)
	MaxBudgetUSD float64 // money a session may spend, in USD, from when it was opened
}

// spending is what a session and its agents spent, shared between them.
type spending struct {
	mu       sync.Mutex
	cost     agent.Cost
	unpriced string // a model whose price is unknown, once one was used
}

func (sp *spending) add(c agent.Cost, model string) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	sp.cost = sp.cost.Add(c)
	if !c.Known() && sp.unpriced == "" {
		sp.unpriced = model
	}
}

func (sp *spending) get() (agent.Cost, string) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.cost, sp.unpriced
}

// checkBudget ends the turn once the session has spent its budget, or
// when what it spends cannot be known: an unknown price would let it run
// past any budget.
func (s *Session) checkBudget() error {
	max := s.f.cfg.Limits.MaxBudgetUSD
	if max <= 0 {
		return nil
	}
	spent, unpriced := s.spend.get()
	if unpriced != "" {
		return &agent.LimitError{Limit: agent.LimitBudget, Reason: fmt.Sprintf(
			"budget of %s cannot be kept: no price is known for %s, so what it costs is unknown (set one under \"prices\" in ~/.config/aci/settings.json); spent %s on priced requests",
			FormatUSD(max), unpriced, FormatUSD(spent.USD))}
	}
	if spent.USD >= max {
		return &agent.LimitError{Limit: agent.LimitBudget, Reason: fmt.Sprintf(
			"budget reached: spent %s of %s (--max-budget-usd, or limits.max_budget_usd in settings)", FormatUSD(spent.USD), FormatUSD(max))}
	}
	return nil
}

// checkTurns refuses question n past the session's turns.
func (s *Session) checkTurns(n int) error {
	max := s.f.cfg.Limits.MaxTurns
	if max <= 0 || n <= max {
		return nil
	}
	return &agent.LimitError{Limit: agent.LimitTurns, Reason: fmt.Sprintf(
		"turn limit reached: this session has had %s of %d (--max-turns, or limits.max_turns in settings); start a new session to go on",
		plural(n-1, "turn"), max)}
}

// refused ends turn n before it began, for a budget already spent: no
// model request, nothing in the conversation; the result says why.
func (s *Session) refused(ctx context.Context, n int, err error) Result {
	s.mu.Lock()
	if s.turnN == n {
		s.turnN = n - 1 // no turn event went out: the turn never began
	}
	s.mu.Unlock()
	st := s.agent.Stats()
	r := s.result(ctx, "", err, st, st, 0)
	s.publish(r)
	return r
}

// currentModel is the model requests go to now.
func (s *Session) currentModel() string {
	if ms, ok := s.client.(modelSetter); ok {
		return ms.Model()
	}
	return s.model
}

// withAnswerNote asks for the answer the output schema describes, in the
// question: the turn's requests cannot all carry it as response_format,
// since the model calls its tools in words (agent/format.go).
func (s *Session) withAnswerNote(text string) string {
	if s.opt.Answer == nil {
		return text
	}
	return text + "\n\n<output_schema>When you are done, reply with your final answer as one JSON value valid against this JSON Schema, and nothing else (no prose around it):\n" +
		string(s.opt.Answer.JSON()) + "\n</output_schema>"
}
