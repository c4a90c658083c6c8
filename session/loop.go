package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/secrets"
)

// onEvent turns the loop's events into the session's: its state machine,
// and the typed events every front end reads. The loop's events stay
// here: no front end sees them.
func (s *Session) onEvent(ev agent.Event) {
	s.tel.agentEvent(ev)
	switch ev.Kind {
	case agent.EventSteer:
		s.publish(s.steerEvent(ev))
	case agent.EventRequest:
		s.mu.Lock()
		watched := len(s.subs) > 0
		s.mu.Unlock()
		if watched {
			// Renders every window: only worth it when someone looks.
			s.snapshotWindows(true)
		}
		s.streamed, s.filter = false, protocol.StreamFilter{}
		s.text, s.reasoning = s.redactStream(), s.redactStream()
		s.setState(StateAwaitingModel)
	case agent.EventReasoning:
		if s.reasoning == nil {
			s.reasoning = s.redactStream()
		}
		if t := s.reasoning.Write(ev.Text); t != "" {
			s.publish(Text{Text: t, Reasoning: true})
		}
	case agent.EventText:
		s.streamed = true
		inBlock := s.filter.InBlock()
		s.words(s.filter.Write(ev.Text))
		if !inBlock && s.filter.InBlock() {
			s.publish(Text{Calling: true})
		}
	case agent.EventReply:
		if s.reasoning != nil {
			if t := s.reasoning.Flush(); t != "" {
				s.publish(Text{Text: t, Reasoning: true})
			}
		}
		text := s.filter.Flush()
		if !s.streamed {
			text = ev.Parsed.Text
		}
		s.words(text)
		if s.text != nil {
			if t := s.text.Flush(); t != "" {
				s.publish(Text{Text: t})
			}
		}
	case agent.EventCall:
		params := any(ev.Call.Params)
		if ev.Call.Params == nil {
			params = map[string]any{}
		}
		desc := s.describe(ev.Call)
		s.mu.Lock()
		s.call = &callInfo{id: ev.Call.ID, windowID: ev.Call.WindowID, actionID: ev.Call.ActionID, params: params, title: desc.Title}
		s.mu.Unlock()
		s.setState(StateExecuting)
		s.publish(ToolCall{Call: ev.Call, Title: s.f.cfg.Agent.Redact(ev.Title), Desc: desc})
	case agent.EventResult:
		// What the command printed as it ran goes out before its result.
		s.live.endCall(s, ev.Call.ID)
		s.mu.Lock()
		s.call = nil
		if ev.Result.Status == protocol.StatusDenied {
			s.denials = append(s.denials, Denial{WindowID: ev.Result.WindowID, ActionID: ev.Result.ActionID, Reason: strings.Join(strings.Fields(ev.Result.Text), " ")})
		}
		watched := len(s.subs) > 0
		s.mu.Unlock()
		s.publish(ToolResult{Call: ev.Call, Result: ev.Result, Detail: ev.Detail})
		s.heldNotices()
		if watched {
			// A window opened or changed by this call is seen at once,
			// not after the batch.
			s.snapshotWindows(true)
		}
	case agent.EventUsage:
		s.spend.add(ev.Usage.Cost, s.currentModel())
		s.mu.Lock()
		s.steps++
		s.usage.PromptTokens += ev.Usage.PromptTokens
		s.usage.CompletionTokens += ev.Usage.CompletionTokens
		s.usage.CachedTokens += ev.Usage.CachedTokens
		s.mu.Unlock()
		s.priceHint(ev.Usage)
	case agent.EventNotice:
		s.publish(Notice{Kind: "hint", Text: s.f.cfg.Agent.Redact(ev.Text)})
	case agent.EventCompressed:
		if c := ev.Compression; c != nil {
			s.publish(Notice{Kind: "compression", Text: CompressionLine(c)})
		}
	}
}

// words publishes the reply's words, secrets held back across pieces.
func (s *Session) words(text string) {
	if text == "" {
		return
	}
	if s.text == nil {
		s.text = s.redactStream()
	}
	if t := s.text.Write(text); t != "" {
		s.publish(Text{Text: t})
	}
}

func (s *Session) redactStream() *secrets.RedactStream {
	return secrets.NewRedactStream(s.f.cfg.Agent.Redact, s.f.cfg.Secrets.Partial)
}

// CompressionLine says what a compression did, honestly when it saved
// little or nothing.
func CompressionLine(c *agent.Compression) string {
	if c.After < c.Before {
		return fmt.Sprintf("compressed %d → %d tokens (earlier conversation summarized; windows stay open)", c.Before, c.After)
	}
	return fmt.Sprintf("summarized the earlier conversation (about %d tokens before, %d after: the open windows take most of the room)", c.Before, c.After)
}

// result is the event that ends a turn: how it ended is decided here and
// nowhere else.
func (s *Session) result(ctx context.Context, answer string, err error, after, before agent.Stats, took time.Duration) Result {
	s.mu.Lock()
	denials := s.denials
	s.mu.Unlock()
	r := Result{
		Outcome: Answered, Answer: strings.TrimSpace(answer), SessionID: s.ID(), Denials: denials,
		Steps: after.Steps - before.Steps, Duration: took,
		Usage: Usage{
			PromptTokens:     after.PromptTokens - before.PromptTokens,
			CompletionTokens: after.CompletionTokens - before.CompletionTokens,
			CachedTokens:     after.CachedTokens - before.CachedTokens,
		},
		Money: moneyOf(after.Cost, before.Cost),
	}
	s.takeChildUsage(&r.Usage)
	if v := s.agent.StructuredOutput(); err == nil && v != nil {
		// Checked before redaction; a secret in a JSON string becomes
		// [REDACTED], which keeps it JSON.
		if red := s.f.cfg.Agent.Redact(string(v)); json.Valid([]byte(red)) {
			r.Structured = json.RawMessage(red)
		} else {
			err = errors.New("the answer holds a secret that cannot be removed from its JSON")
		}
	}
	if err != nil {
		r.Outcome, r.Err, r.Answer = Failed, err, ""
		msg := s.describeError(err)
		switch {
		case ctx.Err() != nil:
			r.Outcome, msg = Interrupted, "interrupted"
		case errors.Is(err, agent.ErrLimit):
			r.Outcome, r.Limit, msg = LimitReached, agent.LimitOf(err), err.Error()
		case errors.Is(err, agent.ErrBadAnswer):
			msg = err.Error()
		case agent.Classify(err).Class == agent.ClassContentFilter:
			r.Cause = CauseRefused
		}
		r.Error = s.f.cfg.Agent.Redact(msg)
	}
	return r
}
