package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/settings"
)

// loadEffort reads the reasoning effort: ACI_REASONING_EFFORT, then
// --effort, which wins.
func (c *config) loadEffort(flagValue string, flagSet bool) error {
	v, from := os.Getenv("ACI_REASONING_EFFORT"), "ACI_REASONING_EFFORT"
	if flagSet {
		v, from = flagValue, "--effort"
		if v == "" {
			return usageErr("--effort needs a level: %s", joinEfforts())
		}
	}
	e, err := session.ParseEffort(v)
	if err != nil {
		return usageErr("%s: %v", from, err)
	}
	c.Effort = e
	return nil
}

func joinEfforts() string {
	s := ""
	for i, e := range session.Efforts {
		if i > 0 {
			s += ", "
		}
		s += e
	}
	return s
}

// loadModels reads the settings files, once for the whole process (a
// file that cannot be read or parsed, or a malformed entry, is one usage
// error naming it), takes their providers and prices and checks the
// model picked at start: a provider's model needs its key variable set.
func (c *config) loadModels(stderr io.Writer) error {
	wd, _ := os.Getwd()
	c.Person = settings.ReadPerson()
	if c.Person.Err != nil {
		return usageErr("%v", c.Person.Err)
	}
	c.Project = settings.ReadProject(sandbox.WorkspaceRoot(wd)) // .aci/ lives at the git root
	if c.Project.Err != nil {
		return usageErr("%v", c.Project.Err)
	}
	m := settings.ModelsOf(c.Person, c.Project)
	for _, n := range m.Notes {
		fmt.Fprintln(stderr, "aci:", n)
	}
	for name, p := range m.Providers {
		c.Providers = append(c.Providers, session.Provider{Name: name, BaseURL: p.BaseURL, APIKeyEnv: p.APIKeyEnv, Models: p.Models, Headers: p.Headers})
		if p.APIKeyEnv != "" {
			// Kept out of output whatever the variable is called.
			c.Secrets.Add(os.Getenv(p.APIKeyEnv))
		}
	}
	if len(m.Prices) > 0 {
		c.Prices = map[string]session.Price{}
		for model, p := range m.Prices {
			c.Prices[model] = session.Price{Input: p.Input, CachedInput: p.CachedInput, CacheWrite: p.CacheWrite, Output: p.Output}
		}
	}
	name, rest, _ := strings.Cut(c.Model, "/")
	for _, p := range c.Providers {
		if p.Name != name || rest == "" {
			continue
		}
		c.OnProvider = true
		if p.APIKeyEnv != "" && os.Getenv(p.APIKeyEnv) == "" {
			return usageErr("--model %s: %v", c.Model, &session.NoKeyError{Provider: p.Name, Var: p.APIKeyEnv})
		}
	}
	if n := c.providerTypo(name, rest); n != "" {
		fmt.Fprintln(stderr, "aci:", n)
	}
	return nil
}

// providerTypo is a notice when the model's prefix is no provider of the
// settings but a typo or two away from one ("olama/qwen" for "ollama"):
// such a name goes to the default endpoint as a model name (docs/protocol.md
// §2: OpenRouter's anthropic/claude-… is one), so it is not refused, only
// said. A prefix far from every provider says nothing.
func (c *config) providerTypo(name, rest string) string {
	if c.OnProvider || rest == "" || len(c.Providers) == 0 {
		return ""
	}
	var names []string
	for _, p := range c.Providers {
		names = append(names, p.Name)
	}
	sort.Strings(names)
	lower := strings.ToLower(name)
	for _, n := range names {
		if d := editDistance(lower, strings.ToLower(n)); d > 0 && d <= 2 && d < len(n) || d == 0 && n != name {
			return fmt.Sprintf("--model %s: %q is not one of your providers (%s), so the model goes to the default endpoint (%s); did you mean %s/%s?",
				c.Model, name, strings.Join(names, ", "), c.BaseURL, n, rest)
		}
	}
	return ""
}
