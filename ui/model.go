package ui

import (
	"context"
	"fmt"
	"time"

	"github.com/aci-dev/aci/agent"
)

// modelClient is a client that can list its server's models and switch.
type modelClient interface {
	Model() string
	SetModel(name string)
	Models(ctx context.Context) ([]agent.ModelInfo, error)
}

// modelListTimeout bounds asking the server for its models.
const modelListTimeout = 10 * time.Second

// cmdModel lists the server's models (the current one marked) or, given a
// name, switches to it for the next requests.
func (r *REPL) cmdModel(name string) bool {
	mc, ok := r.client.(modelClient)
	if !ok {
		r.out.note("this session's model cannot be changed")
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), modelListTimeout)
	defer cancel()
	if name != "" && r.switchProvider(ctx, mc, name) {
		return false
	}
	models, err := mc.Models(ctx)
	current := mc.Model()
	if name == "" {
		if err != nil {
			r.out.note("model: " + current)
			r.out.fail("the server does not list its models: " + err.Error())
			r.listProviders(ctx, current)
			return false
		}
		for _, m := range models {
			mark := "  "
			if m.ID == current {
				mark = r.out.cyan.Sprint("* ")
			}
			r.out.println(mark + sanitize(m.ID))
		}
		if len(models) == 0 {
			r.out.note("the server lists no models")
		}
		r.listProviders(ctx, current)
		r.out.note("/model NAME switches to NAME")
		return false
	}
	if err == nil && len(models) > 0 && !hasModel(models, name) {
		r.out.fail(fmt.Sprintf("no model %q on this server; /model lists them", sanitize(name)))
		return false
	}
	mc.SetModel(name)
	r.cfg.Model = name
	r.out.note("model: " + sanitize(name))
	return false
}

func hasModel(models []agent.ModelInfo, name string) bool {
	for _, m := range models {
		if m.ID == name {
			return true
		}
	}
	return false
}
