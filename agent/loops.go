package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/aci-dev/aci/protocol"
)

// Open models fall into loops the strong ones rarely do: the same call
// again and again with the same result, or a reply that narrates the next
// step ("I'll run the tests") without a call, which would end the turn. A
// watch per turn spots both and answers with a short hint; a run of
// batches that all fail ends the turn.

// Thresholds of the watch.
const (
	repeatHint       = 3 // the same call with the same result this many times in a row gets a hint
	loopStop         = 4 // the same failing call this many times in a row ends the turn: limit "loop"
	maxFailedBatches = 5 // this many batches in a row, every call an error, end the turn
)

// ErrFailingCalls ends a turn whose calls keep failing.
var ErrFailingCalls = errors.New("the model's calls keep failing")

// turnWatch follows one turn's replies and batches.
type turnWatch struct {
	lastBatch     string // signature of the previous batch with its results
	repeats       int    // batches in a row with that signature
	failed        int    // batches in a row where every call failed
	promised      bool   // the promise hint was given this turn
	reasoningOnly int    // replies in a row with reasoning and nothing else
	lastFailing   string // signature of the previous batch's calls when every one failed
	failRepeats   int    // batches in a row with those calls, every one failing
	answerRetried bool   // the answer was sent back to match the output schema (limits.go)
}

// afterReply judges a reply before it is taken as the answer. nudge, when
// set, is a user message that asks the model to go on; store says whether
// the reply itself belongs in the history (a reply of nothing but
// reasoning does not). err ends the turn.
func (w *turnWatch) afterReply(r Reply, p protocol.Parsed) (nudge string, store bool, err error) {
	if p.HasCalls() {
		w.reasoningOnly = 0
		return "", true, nil
	}
	if strings.TrimSpace(r.Content) == "" && strings.TrimSpace(r.Reasoning) != "" {
		w.reasoningOnly++
		if w.reasoningOnly >= maxReasoningOnly {
			return "", false, fmt.Errorf("the model replied %d times with reasoning only, no answer and no call; try again, or another model", w.reasoningOnly)
		}
		return reasoningNudge, false, nil
	}
	w.reasoningOnly = 0
	if phrase, ok := promisesAction(p.Text); ok && !w.promised {
		w.promised = true
		return fmt.Sprintf("<system_hint>You wrote %q but no <tool_call>, so nothing ran. If you meant to act, write the call now; if you are done, give your final answer.</system_hint>", phrase), true, nil
	}
	return "", true, nil
}

// afterBatch judges a batch by its results. hint, when set, is appended to
// the results message; err ends the turn.
func (w *turnWatch) afterBatch(calls []protocol.Call, results []protocol.Result) (hint string, err error) {
	sig := batchSignature(calls, results)
	if sig == w.lastBatch {
		w.repeats++
	} else {
		w.lastBatch, w.repeats = sig, 1
	}
	allFailed := len(results) > 0
	for _, r := range results {
		if r.Status != protocol.StatusError {
			allFailed = false
		}
	}
	if allFailed {
		w.failed++
	} else {
		w.failed = 0
	}
	// The same calls failing again and again, whatever the errors say: a
	// loop, stopped before any other limit (the hint came first).
	if fsig := callSignature(calls); allFailed && fsig == w.lastFailing {
		w.failRepeats++
	} else if allFailed {
		w.lastFailing, w.failRepeats = fsig, 1
	} else {
		w.lastFailing, w.failRepeats = "", 0
	}
	if w.failRepeats >= loopStop {
		return "", &LimitError{Limit: LimitLoop, Reason: fmt.Sprintf("stopped a loop: the same failing call (%s) %d times in a row, each an error (the last: %s)",
			callName(calls), w.failRepeats, firstLineOf(results[len(results)-1].Text))}
	}
	if w.failed >= maxFailedBatches {
		return "", fmt.Errorf("%w: %d batches in a row where every call failed (the last: %s); stopping the turn", ErrFailingCalls, w.failed, firstLineOf(results[len(results)-1].Text))
	}
	if n := max(w.repeats, w.failRepeats); n >= repeatHint {
		return fmt.Sprintf("\n<system_hint>This is the %s time in a row you made the same call (%s) with the same result. Repeating it will not change it: try a different approach, or give your answer.</system_hint>", ordinal(n), callName(calls)), nil
	}
	return "", nil
}

// callName names a batch's first call as window.action.
func callName(calls []protocol.Call) string {
	if len(calls) > 0 && calls[0].WindowID != "" {
		return calls[0].WindowID + "." + calls[0].ActionID
	}
	return "that call"
}

// callSignature identifies a batch by what was asked alone.
func callSignature(calls []protocol.Call) string {
	return batchSignature(calls, nil)
}

// durations are left out of a result's signature: a command run again
// takes another few milliseconds, yet gives the same result.
var durations = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b\d+(?:\.\d+)?(?:h|ms|µs|us|ns|m|s)(?:\d+(?:\.\d+)?(?:ms|m|s))*\b`)
})

// batchSignature identifies a batch by what was asked and what came of it;
// call ids, which always differ, are left out.
func batchSignature(calls []protocol.Call, results []protocol.Result) string {
	var b strings.Builder
	for i, c := range calls {
		params, _ := json.Marshal(c.Params) // map keys sort; raw values are compacted below
		var compact bytes.Buffer
		if json.Compact(&compact, params) != nil {
			compact.Write(params)
		}
		fmt.Fprintf(&b, "%s\x00%s\x00%s\x00%s\x00", c.WindowID, c.ActionID, compact.Bytes(), c.Err)
		if i < len(results) {
			fmt.Fprintf(&b, "%s\x00%s\x01", results[i].Status, durations().ReplaceAllString(results[i].Text, "#"))
		}
	}
	return b.String()
}

func ordinal(n int) string {
	switch n {
	case 3:
		return "third"
	case 4:
		return "fourth"
	case 5:
		return "fifth"
	}
	return fmt.Sprintf("%dth", n)
}

func firstLineOf(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if r := []rune(s); len(r) > 120 {
		s = string(r[:120]) + "…"
	}
	return s
}

// promise matches a sentence that announces an action: "I'll run the
// tests", "Let me open main.go", "Now I will check…", "Next, I'm going to…".
// Compiled on first use: it is large, and a run may never need it.
var promise = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(?:(?:now|next|first|then|ok(?:ay)?|great|alright)[,!.]?\s+)*(?:i'll|i will|i’ll|let me|let's|let’s|i'm going to|i’m going to|i am going to)\s+(?:(?:now|first|then|quickly|just|also|go ahead and)\s+)*(run|re-?run|open|check|look|read|view|inspect|examine|search|grep|find|list|create|write|edit|modify|update|fix|change|add|remove|delete|apply|implement|install|build|compile|test|execute|start|try|verify|fetch|download|patch|refactor|rename|move|call|see)\b`)
})

// promiseWords are the words every promise the regexp matches contains.
var promiseWords = []string{"i'll", "i will", "i’ll", "let me", "let's", "let’s", "going to"}

func mayPromise(s string) bool {
	s = strings.ToLower(s)
	for _, w := range promiseWords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// promisesAction reports whether text ends by announcing an action, and
// the sentence that does. Only the last sentence counts: a final answer
// may well say what was done before.
func promisesAction(text string) (string, bool) {
	s := strings.TrimSpace(text)
	if s == "" {
		return "", false
	}
	lines := strings.Split(s, "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	last = strings.TrimLeft(last, "*_#>- ")
	// The last sentence of the last line.
	for _, sep := range []string{". ", "! ", "? "} {
		if i := strings.LastIndex(strings.TrimRight(last, ".!?:… "), sep); i >= 0 {
			last = last[i+len(sep):]
		}
	}
	// Most answers name no promise at all: the regexp is compiled only for
	// one that might (a one-question run never needs it).
	if !mayPromise(last) || !promise().MatchString(last) {
		return "", false
	}
	if r := []rune(last); len(r) > 80 {
		last = string(r[:80]) + "…"
	}
	return last, true
}
