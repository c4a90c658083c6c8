package ui

import (
	"context"
	"errors"

	"github.com/aci-dev/aci/session"
)

// cmdModel lists the server's models (the current one marked) and each
// provider's or, given a name, switches to it for the next requests: the
// session's model operation (session/ops.go).
func (r *REPL) cmdModel(name string) bool {
	ctx := context.Background()
	if name != "" {
		err := r.sess.SetModel(ctx, name)
		var unknown *session.UnknownModelError
		switch {
		case errors.Is(err, session.ErrNotOffered):
			r.out.note("this session's model cannot be changed")
		case errors.As(err, &unknown):
			r.out.fail(sanitize(err.Error()) + "; /model lists them")
		case err != nil:
			r.out.fail(sanitize(err.Error()))
		default:
			r.cfg.Model = name
			r.out.note("model: " + sanitize(name))
		}
		return false
	}
	list, err := r.sess.Models(ctx)
	if err != nil {
		r.out.note("this session's model cannot be changed")
		return false
	}
	if list.Err != nil {
		r.out.note("model: " + sanitize(list.Current))
		r.out.fail("the server does not list its models: " + sanitize(list.Err.Error()))
	} else {
		r.listModels(list.Models, list.Current)
		if len(list.Models) == 0 {
			r.out.note("the server lists no models")
		}
	}
	for _, p := range list.Providers {
		r.out.println(r.out.dim.Sprint(sanitize(p.Name) + " (" + sanitize(p.BaseURL) + ")"))
		if p.Err != nil {
			r.out.fail(sanitize(p.Err.Error()))
			continue
		}
		r.listModels(p.Models, list.Current)
	}
	if list.Err == nil {
		r.out.note("/model NAME switches to NAME")
	}
	return false
}

// listModels prints models one a line, current marked.
func (r *REPL) listModels(models []string, current string) {
	for _, m := range models {
		mark := "  "
		if m == current {
			mark = r.out.cyan.Sprint("* ")
		}
		r.out.println(mark + sanitize(m))
	}
}
