package agent

import (
	"fmt"
	"net/url"
	"strings"
	"sync"
)

// Reasoning effort. OpenAI's reasoning models (the o-series, the gpt-5
// family) take "reasoning_effort"; OpenRouter takes it for every model and
// maps it to each provider's own knob. Other models refuse the field with a
// 400, so it is sent only where it is known to be taken, and a server that
// refuses it anyway (a quirk row in provider.go) gets the request again
// without it, once said.

// Efforts are the levels --effort, ACI_REASONING_EFFORT and /effort take.
var Efforts = []string{"low", "medium", "high"}

// ParseEffort checks a level; "" means the model's default.
func ParseEffort(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return "", nil
	}
	for _, e := range Efforts {
		if s == e {
			return s, nil
		}
	}
	return "", fmt.Errorf("reasoning effort %q: want one of %s", s, strings.Join(Efforts, ", "))
}

// effortState is the client's effort and the models that refused it.
type effortState struct {
	mu      sync.Mutex
	level   string
	refused modelSet
	said    modelSet // models already told about
}

// modelSet is a set of model names, safe for concurrent use.
type modelSet struct {
	mu sync.Mutex
	m  map[string]bool
}

func (s *modelSet) has(model string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[model]
}

// add puts model in the set; it reports whether it was not in it yet.
func (s *modelSet) add(model string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m[model] {
		return false
	}
	if s.m == nil {
		s.m = map[string]bool{}
	}
	s.m[model] = true
	return true
}

// SetEffort sets the reasoning effort of later requests ("" for the
// model's default); it must be a level ParseEffort accepts.
func (c *OpenAIClient) SetEffort(level string) {
	c.effort.mu.Lock()
	defer c.effort.mu.Unlock()
	c.effort.level = level
}

// Effort is the reasoning effort set, "" for the model's default.
func (c *OpenAIClient) Effort() string {
	c.effort.mu.Lock()
	defer c.effort.mu.Unlock()
	return c.effort.level
}

// TakesEffort reports whether requests to model carry reasoning_effort on
// this client's endpoint.
func (c *OpenAIClient) TakesEffort(model string) bool {
	ep := c.endpoint(model)
	if isOpenRouter(ep.baseURL) {
		return true
	}
	m := strings.ToLower(ep.model)
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	if strings.HasPrefix(m, "gpt-5") && !strings.Contains(m, "chat") { // gpt-5-chat-latest takes none
		return true
	}
	return len(m) >= 2 && m[0] == 'o' && m[1] >= '1' && m[1] <= '9' // o1, o3, o4-mini
}

// effortFor is the reasoning_effort a request to model carries, or "".
func (c *OpenAIClient) effortFor(model string) string {
	level := c.Effort()
	if level == "" || c.effort.refused.has(model) || !c.TakesEffort(model) {
		return ""
	}
	return level
}

// dropEffort handles a refusal of reasoning_effort by model: it is not sent
// to that model again, and the person is told once. It reports whether the
// request should be sent again at once.
func (c *OpenAIClient) dropEffort(model string, e APIError) bool {
	if e.Class != ClassBadRequest || e.Provider != "effort" || c.effortFor(model) == "" {
		return false
	}
	c.effort.refused.add(model)
	c.retry.notify(fmt.Sprintf("%s does not take a reasoning effort; sending without it", model))
	return true
}

// EffortNote says, once per model, that the effort set is not sent to
// model; "" when it is sent or was said already.
func (c *OpenAIClient) EffortNote(model string) string {
	level := c.Effort()
	if level == "" || c.TakesEffort(model) || !c.effort.said.add(model) {
		return ""
	}
	return fmt.Sprintf("reasoning effort %s is not sent to %s (it takes none)", level, model)
}

// isOpenRouter reports whether base is OpenRouter's API.
func isOpenRouter(base string) bool {
	u, err := url.Parse(base)
	return err == nil && (u.Hostname() == "openrouter.ai" || strings.HasSuffix(u.Hostname(), ".openrouter.ai"))
}
