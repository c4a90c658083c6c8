package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Budgets (docs/protocol.md §11): a turn ends cleanly when it reaches one, with
// a *LimitError naming it; front ends report outcome "limit".

// The limits a turn may reach.
const (
	LimitSteps  = "steps"  // model requests in the turn (--max-steps)
	LimitTurns  = "turns"  // questions in the session (--max-turns; the session checks it)
	LimitBudget = "budget" // money spent (--max-budget-usd; the session's Config.Budget)
	LimitLoop   = "loop"   // the same failing call again and again (loops.go)
)

// ErrLimit is what every *LimitError is.
var ErrLimit = errors.New("limit reached")

// LimitError ends a turn that reached a limit: which, and what was spent,
// in Reason.
type LimitError struct {
	Limit  string
	Reason string
}

func (e *LimitError) Error() string { return e.Reason }

// Is makes errors.Is(err, ErrLimit) hold, and ErrStepLimit for the steps.
func (e *LimitError) Is(target error) bool {
	return target == ErrLimit || target == ErrStepLimit && e.Limit == LimitSteps
}

// LimitOf is the limit err reached, "" when it is not a *LimitError.
func LimitOf(err error) string {
	var le *LimitError
	if errors.As(err, &le) {
		return le.Limit
	}
	return ""
}

// stepLimit is the error of a turn that made max model requests.
func stepLimit(max int) error {
	calls := fmt.Sprintf("%d model calls", max)
	if max == 1 {
		calls = "1 model call"
	}
	return &LimitError{Limit: LimitSteps, Reason: fmt.Sprintf("%v: %s in this turn without a final answer (raise --max-steps or ACI_MAX_STEPS)", ErrStepLimit, calls)}
}

// AnswerChecker checks a final answer (--output-schema): Check returns the
// JSON value, or an error saying what is wrong with it; the rest describe
// the schema for a request's response_format.
type AnswerChecker interface {
	Check(answer string) (json.RawMessage, error)
	JSON() json.RawMessage
	Name() string
	Strict() bool
}

// ErrBadAnswer ends a turn whose answer did not match the output schema,
// even when sent back once with the errors.
var ErrBadAnswer = errors.New("the answer does not match the output schema")

// ResponseFormat asks a provider for structured output: the body's
// response_format (OpenAI's shape, which OpenRouter, Ollama, llama.cpp,
// vLLM and LM Studio take too).
type ResponseFormat struct {
	Type       string       `json:"type"` // "json_schema"
	JSONSchema formatSchema `json:"json_schema"`
	dropped    bool         // the provider refused it: the request goes again without
}

type formatSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

type formatKey struct{}

// withResponseFormat makes the requests of ctx ask for structured output.
func withResponseFormat(ctx context.Context, a AnswerChecker) context.Context {
	f := &ResponseFormat{Type: "json_schema", JSONSchema: formatSchema{Name: a.Name(), Schema: a.JSON(), Strict: a.Strict()}}
	return context.WithValue(ctx, formatKey{}, f)
}

// responseFormat is the structured output ctx asks for, or nil.
func responseFormat(ctx context.Context) *ResponseFormat {
	f, _ := ctx.Value(formatKey{}).(*ResponseFormat)
	if f == nil || f.dropped {
		return nil
	}
	return f
}

// checkAnswer checks a final answer against cfg.Answer. again, when set,
// is the message that sends it back with the errors (once a turn); err
// ends the turn when the answer sent back did not match either.
func (a *Agent) checkAnswer(answer string) (again string, err error) {
	if a.cfg.Answer == nil {
		return "", nil
	}
	v, cerr := a.cfg.Answer.Check(answer)
	if cerr == nil {
		a.structured = v
		return "", nil
	}
	if a.watch.answerRetried {
		return "", fmt.Errorf("%w, even sent back once with the errors: %v", ErrBadAnswer, cerr)
	}
	a.watch.answerRetried = true
	a.emit(Event{Kind: EventNotice, Text: "the answer does not match the output schema; sending it back once: " + firstLineOf(cerr.Error())})
	return "<system_hint>Your final answer must be a JSON value valid against the output schema, and nothing else. " +
		cerr.Error() + "\nReply with the corrected JSON value alone.</system_hint>", nil
}

// StructuredOutput is the last turn's answer as the output schema checked
// it (nil without a schema, or when the turn did not answer).
func (a *Agent) StructuredOutput() json.RawMessage { return a.structured }
