package settings

import (
	"encoding/json"
	"fmt"
	"math"
)

// Budgets are the person's `limits` that bound a session's work
// (docs/protocol.md §11): {"max_steps": N, "max_turns": N, "max_budget_usd": X}.
// Zero is unset. They come from the person's file alone: a workspace's
// file must not raise what the person pays.
type Budgets struct {
	MaxSteps     int
	MaxTurns     int
	MaxBudgetUSD float64
}

// parseBudgets reads the budgets of the person's `limits`. A value of the
// wrong kind is an error naming the file and key: a budget silently not
// kept would let a run spend what the person meant to stop.
func parseBudgets(path string, raw json.RawMessage) (Budgets, error) {
	var b Budgets
	if raw == nil {
		return b, nil
	}
	var f struct {
		Limits map[string]json.RawMessage
	}
	if err := json.Unmarshal(raw, &f.Limits); err != nil {
		return b, fmt.Errorf("settings: %s: limits: %w", path, err)
	}
	whole := func(key string, into *int) error {
		raw, ok := f.Limits[key]
		if !ok || string(raw) == "null" {
			return nil
		}
		var v float64
		if json.Unmarshal(raw, &v) != nil || v != math.Trunc(v) || v < 1 || v > math.MaxInt32 {
			return fmt.Errorf("settings: %s: limits.%s must be a whole number of at least 1, got %s", path, key, raw)
		}
		*into = int(v)
		return nil
	}
	if err := whole("max_steps", &b.MaxSteps); err != nil {
		return b, err
	}
	if err := whole("max_turns", &b.MaxTurns); err != nil {
		return b, err
	}
	if raw, ok := f.Limits["max_budget_usd"]; ok && string(raw) != "null" {
		var v float64
		if json.Unmarshal(raw, &v) != nil || !(v > 0) || math.IsInf(v, 0) {
			return b, fmt.Errorf("settings: %s: limits.max_budget_usd must be a number of US dollars above 0, like 2.50, got %s", path, raw)
		}
		b.MaxBudgetUSD = v
	}
	return b, nil
}
