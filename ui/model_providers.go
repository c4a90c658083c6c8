package ui

import (
	"context"
	"fmt"

	"github.com/aci-dev/aci/agent"
)

// providerClient is a client with a providers table (agent/providers.go).
type providerClient interface {
	Providers() []agent.Provider
	SplitModel(name string) (provider, model string)
	CheckModel(name string) error
	ProviderModels(ctx context.Context, name string) ([]string, error)
}

// listProviders prints each provider's models after the default
// endpoint's, the current one marked; a provider that cannot be used (its
// key variable is not set) is a line saying so.
func (r *REPL) listProviders(ctx context.Context, current string) {
	pc, ok := r.client.(providerClient)
	if !ok {
		return
	}
	for _, p := range pc.Providers() {
		r.out.println(r.out.dim.Sprint(sanitize(p.Name) + " (" + sanitize(p.BaseURL) + ")"))
		if err := pc.CheckModel(p.Name + "/x"); err != nil {
			r.out.fail(err.Error())
			continue
		}
		models, err := pc.ProviderModels(ctx, p.Name)
		if err != nil {
			r.out.fail(fmt.Sprintf("provider %s does not list its models: %v", p.Name, err))
			continue
		}
		for _, m := range models {
			mark := "  "
			if m == current {
				mark = r.out.cyan.Sprint("* ")
			}
			r.out.println(mark + sanitize(m))
		}
	}
}

// switchProvider handles /model NAME/MODEL for a provider's model: it
// reports false when name is the default endpoint's. A provider whose key
// variable is not set, or that does not list the model, is refused.
func (r *REPL) switchProvider(ctx context.Context, mc modelClient, name string) bool {
	pc, ok := r.client.(providerClient)
	if !ok {
		return false
	}
	prov, _ := pc.SplitModel(name)
	if prov == "" {
		return false
	}
	if err := pc.CheckModel(name); err != nil {
		r.out.fail(err.Error())
		return true
	}
	if models, err := pc.ProviderModels(ctx, prov); err == nil && len(models) > 0 && !contains(models, name) {
		r.out.fail(fmt.Sprintf("no model %q on provider %s; /model lists them", sanitize(name), prov))
		return true
	}
	mc.SetModel(name)
	r.cfg.Model = name
	r.out.note("model: " + sanitize(name))
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
