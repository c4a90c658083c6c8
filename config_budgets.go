package main

import (
	"math"
	"strconv"
	"strings"

	"github.com/aci-dev/aci/tools/outschema"
)

// Budgets (docs/protocol.md §11): the flags win over the person's settings
// (limits.max_steps, max_turns, max_budget_usd); ACI_MAX_STEPS wins over
// the settings' max_steps, as the environment wins over files.

func loadBudgets(l *loading, _ settingInput) error {
	// Read, and checked, with the providers: that row comes first.
	l.budgets = l.c.Person.Budgets
	return nil
}

func parseMaxTurns(l *loading, in settingInput) error {
	l.c.MaxTurns = l.budgets.MaxTurns
	if !in.flagSet {
		return nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(in.flag))
	if err != nil {
		return usageErr("--max-turns must be a whole number, got %q", in.flag)
	}
	if n < 1 {
		return usageErr("--max-turns must be at least 1, got %d", n)
	}
	l.c.MaxTurns = n
	return nil
}

func parseMaxBudget(l *loading, in settingInput) error {
	l.c.MaxBudgetUSD = l.budgets.MaxBudgetUSD
	if !in.flagSet {
		return nil
	}
	v := strings.TrimPrefix(strings.TrimSpace(in.flag), "$")
	usd, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsInf(usd, 0) || math.IsNaN(usd) {
		return usageErr("--max-budget-usd must be a number of US dollars, like 2.50, got %q", in.flag)
	}
	if usd <= 0 {
		return usageErr("--max-budget-usd must be above 0, got %q", in.flag)
	}
	l.c.MaxBudgetUSD = usd
	return nil
}

// parseOutputSchema reads --output-schema's file: a schema that is not
// JSON Schema is a usage error, before anything is sent.
func parseOutputSchema(l *loading, in settingInput) error {
	if !in.flagSet {
		return nil
	}
	if strings.TrimSpace(in.flag) == "" {
		return usageErr("--output-schema needs a file: a JSON Schema the answer must match")
	}
	s, err := outschema.Load(in.flag)
	if err != nil {
		return usageErr("%v", err)
	}
	l.c.OutputSchema = s
	return nil
}
