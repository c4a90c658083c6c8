package session

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/aci-dev/aci/agent"
)

// The typed operations of the table (ops.go) that work on the loop and
// its model client: compact, model, effort, usage, and a file window for
// a mentioned path. Each refuses what it cannot do with a clear error.

// ErrNotOffered is an operation this session's model client cannot do (a
// client without a model list or a reasoning effort).
var ErrNotOffered = errors.New("this session's model client does not offer it")

// ErrNothingToCompact is a compaction asked of a conversation not begun.
var ErrNothingToCompact = errors.New("nothing to compress yet")

// Compacted says what a compaction did.
type Compacted struct {
	Before int64  `json:"before"` // prompt tokens before
	After  int64  `json:"after"`  // estimated tokens after
	Line   string `json:"line"`   // as a person reads it
}

// Compact compresses the conversation into a summary now, keeping what
// focus names. Like a turn it refuses while one runs (ErrBusy), and
// Cancel ends it; its notice event says what it did.
func (s *Session) Compact(ctx context.Context, focus string) (Compacted, error) {
	ctx, err := s.claim(ctx)
	if err != nil {
		return Compacted{}, err
	}
	s.run.Lock()
	defer s.endTurn()
	if len(s.agent.History()) == 0 {
		return Compacted{}, ErrNothingToCompact
	}
	s.setState(StateAwaitingModel)
	defer s.setState(StateIdle)
	c, err := s.agent.Compact(ctx, focus)
	if err != nil {
		return Compacted{}, err
	}
	return Compacted{Before: c.Before, After: c.After, Line: CompressionLine(&c)}, nil
}

// modelLister is a client that lists its server's models, and its
// providers' (agent.OpenAIClient).
type modelLister interface {
	Models(ctx context.Context) ([]agent.ModelInfo, error)
	Providers() []agent.Provider
	CheckModel(name string) error
	ProviderModels(ctx context.Context, name string) ([]string, error)
	SplitModel(name string) (provider, model string)
}

// ModelList is what a session may switch to: the model server's models,
// then each provider's as NAME/MODEL.
type ModelList struct {
	Current   string           `json:"current"`
	Models    []string         `json:"models"`          // the model server's
	Err       error            `json:"-"`               // why it lists none
	Providers []ProviderModels `json:"providers"`       // in name order
	Error     string           `json:"error,omitempty"` // Err's line
}

// ProviderModels is one provider's part of a ModelList.
type ProviderModels struct {
	Name    string   `json:"name"`
	BaseURL string   `json:"base_url"`
	Models  []string `json:"models"`
	// Err says why it lists none: its key variable is not set, or it
	// did not answer.
	Err   error  `json:"-"`
	Error string `json:"error,omitempty"`
}

// modelListTimeout bounds asking the servers for their models.
const modelListTimeout = 10 * time.Second

// listModels asks c's servers for their models.
func listModels(ctx context.Context, c modelLister, current string) ModelList {
	ctx, cancel := context.WithTimeout(ctx, modelListTimeout)
	defer cancel()
	out := ModelList{Current: current, Models: []string{}}
	if list, err := c.Models(ctx); err != nil {
		out.Err, out.Error = err, err.Error()
	} else {
		for _, m := range list {
			out.Models = append(out.Models, m.ID)
		}
	}
	for _, p := range c.Providers() {
		pm := ProviderModels{Name: p.Name, BaseURL: p.BaseURL, Models: []string{}}
		if err := c.CheckModel(p.Name + "/x"); err != nil {
			pm.Err = err
		} else if list, err := c.ProviderModels(ctx, p.Name); err != nil {
			pm.Err = fmt.Errorf("provider %s does not list its models: %w", p.Name, err)
		} else {
			pm.Models = list
		}
		if pm.Err != nil {
			pm.Error = pm.Err.Error()
		}
		out.Providers = append(out.Providers, pm)
	}
	return out
}

// Models lists what the factory's client configuration reaches, for a
// session not yet made (GET /api/models); Current is the configured model.
func (f *Factory) Models(ctx context.Context) ModelList {
	cc := f.cfg.Client
	return listModels(ctx, agent.NewOpenAIClient(cc), cc.Model)
}

// Models lists what this session may switch to, its model marked Current.
func (s *Session) Models(ctx context.Context) (ModelList, error) {
	c, ok := s.client.(modelLister)
	if !ok {
		return ModelList{Current: s.currentModel()}, ErrNotOffered
	}
	return listModels(ctx, c, s.currentModel()), nil
}

// UnknownModelError is a switch to a model its server does not list.
type UnknownModelError struct{ Name, Provider string }

func (e *UnknownModelError) Error() string {
	if e.Provider != "" {
		return fmt.Sprintf("no model %q on provider %s", e.Name, e.Provider)
	}
	return fmt.Sprintf("no model %q on this server", e.Name)
}

// SetModel switches the session's next requests to name (a provider's as
// NAME/MODEL). A model its server lists not, or a provider whose key
// variable is not set, is refused; a server that lists nothing takes any.
func (s *Session) SetModel(ctx context.Context, name string) error {
	name = strings.TrimSpace(name)
	ms, ok := s.client.(modelSetter)
	c, lists := s.client.(modelLister)
	if !ok || !lists {
		return ErrNotOffered
	}
	if name == "" {
		return errors.New("no model named")
	}
	ctx, cancel := context.WithTimeout(ctx, modelListTimeout)
	defer cancel()
	if prov, _ := c.SplitModel(name); prov != "" {
		if err := c.CheckModel(name); err != nil {
			return err
		}
		if list, err := c.ProviderModels(ctx, prov); err == nil && len(list) > 0 && !slices.Contains(list, name) {
			return &UnknownModelError{Name: name, Provider: prov}
		}
	} else if list, err := c.Models(ctx); err == nil && len(list) > 0 &&
		!slices.ContainsFunc(list, func(m agent.ModelInfo) bool { return m.ID == name }) {
		return &UnknownModelError{Name: name}
	}
	ms.SetModel(name)
	return nil
}

// effortSetter is a client whose reasoning effort can be set.
type effortSetter interface {
	Model() string
	Effort() string
	SetEffort(level string)
	TakesEffort(model string) bool
}

// Efforts are the reasoning effort levels, lowest first; "default" (or
// "") is the model's own.
var Efforts = agent.Efforts

// EffortInfo is the session's reasoning effort.
type EffortInfo struct {
	Level string `json:"level"` // "" for the model's default
	Model string `json:"model"`
	// Sent says the model takes it: for one that takes none, none is sent.
	Sent bool `json:"sent"`
}

// Effort sets the reasoning effort of the next requests to level, one of
// Efforts or "default" (the model's own), and says what it is; level ""
// only says.
func (s *Session) Effort(level string) (EffortInfo, error) {
	ec, ok := s.client.(effortSetter)
	if !ok {
		return EffortInfo{}, ErrNotOffered
	}
	switch level = strings.TrimSpace(level); {
	case level == "":
	case strings.EqualFold(level, "default"):
		ec.SetEffort("")
	default:
		parsed, err := agent.ParseEffort(level)
		if err != nil {
			return EffortInfo{}, err
		}
		ec.SetEffort(parsed)
	}
	m := ec.Model()
	return EffortInfo{Level: ec.Effort(), Model: m, Sent: ec.TakesEffort(m)}, nil
}

// Stats are the loop's counts (tokens, steps, money) for /usage.
type Stats = agent.Stats

// ModelWindow is the model's context window as last asked (Tokens 0 when
// unknown).
type ModelWindow = agent.Window

// Cost is money spent, and what the cache saved.
type Cost = agent.Cost

// Stats are the session's counts so far and its model's context window.
func (s *Session) Stats() (Stats, ModelWindow) {
	return s.agent.Stats(), s.agent.ContextWindow()
}

// OpenFile is the id of a file window showing path (relative to the
// workspace, or absolute), opened if none is; opened says it was.
func (s *Session) OpenFile(ctx context.Context, path string) (id string, opened bool, err error) {
	s.run.Lock()
	defer s.run.Unlock()
	for _, w := range s.wm.Windows() {
		if w.App() == "file" && (w.Title() == path || filepath.Clean(w.Title()) == filepath.Clean(path)) {
			return w.ID(), false, nil
		}
	}
	w, res := s.wm.Open(ctx, "file", path)
	if w == nil {
		return "", false, errors.New(res.Text)
	}
	return w.ID(), true, nil
}

// LiveWindow is window id as it is this moment: for a front end that
// draws a call's effect from the session's events (ACP), on the events'
// goroutine while the turn waits for it. Title and content are redacted.
func (s *Session) LiveWindow(id string) (WindowInfo, bool) {
	redact := s.f.cfg.Agent.Redact
	for _, w := range s.wm.Windows() {
		if w.ID() == id {
			return WindowInfo{ID: id, App: w.App(), Title: redact(w.Title()), Content: redact(w.View().Content)}, true
		}
	}
	return WindowInfo{}, false
}

// Server is the base URL the next requests go to: the current model's,
// a provider's for its models.
func (s *Session) Server() string {
	if bc, ok := s.client.(interface{ BaseURL() string }); ok {
		return bc.BaseURL()
	}
	return s.f.cfg.Client.BaseURL
}
