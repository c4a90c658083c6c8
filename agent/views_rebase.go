package agent

import (
	"fmt"

	"github.com/aci-dev/aci/prompt"
	"github.com/aci-dev/aci/windows"
)

// A rebase drops, from the messages before the last, the renderings that
// later ones superseded: every rendering of a window before its latest
// whole one, and every rendering of a window no longer open. Each window's
// current renderings stay where they are, so the request stays cached up
// to the first rendering dropped and nothing is rendered twice. A window
// unused for collapseAfter steps is dropped too and shown as one line in
// the last message.

// at is a rendering's place: its entry and its index there.
type at struct{ entry, el int }

func (p at) before(q at) bool { return p.entry < q.entry || p.entry == q.entry && p.el < q.el }

// rebaseCut is what a rebase would do.
type rebaseCut struct {
	drop     map[at]bool      // renderings dropped (in the last message too, for windows rendered whole again)
	early    int              // how many of them are before the last message
	collapse []windows.Window // shown as one line in the last message
	whole    []windows.Window // rendered whole in the last message instead of their renderings so far
}

// rewholeSlack is how many bytes a window's renderings must exceed its
// whole rendering by for a rebase to render it whole again: a file opened
// whole and then viewed in parts is shown by its viewport alone.
const rewholeSlack = 512

// cut decides which renderings a rebase of history drops.
func (v *views) cut(history []entry) rebaseCut {
	c := rebaseCut{drop: map[at]bool{}}
	if len(history) < 2 {
		return c
	}
	open := map[string]bool{}
	for _, w := range v.wm.Windows() {
		open[w.ID()] = true
	}
	latest := map[string]at{} // each window's latest whole rendering
	for i := range history {
		for j, el := range history[i].Elements {
			if el.Full {
				latest[el.ID] = at{i, j}
			}
		}
	}
	collapsing := map[string]bool{}
	for _, w := range v.wm.Windows() {
		id := w.ID()
		if s := v.shown[id]; id != "launcher" && s != nil && !s.collapsed && v.step-s.lastUsed >= collapseAfter {
			collapsing[id] = true
			c.collapse = append(c.collapse, w)
		}
	}
	last := len(history) - 1
	chain := map[string]int{}     // bytes of the renderings a window keeps
	kept := map[string][]at{}     // and where they are
	rootless := map[string]bool{} // windows whose kept renderings would not start whole
	for i := range history {
		for j, el := range history[i].Elements {
			here := at{i, j}
			root, whole := latest[el.ID]
			switch {
			case i == last:
			case !open[el.ID] || collapsing[el.ID] || (whole && here.before(root)):
				c.drop[here] = true
				continue
			case !whole:
				rootless[el.ID] = true
			}
			chain[el.ID] += len(el.Text) + 1
			kept[el.ID] = append(kept[el.ID], here)
		}
	}
	for _, w := range v.wm.Windows() {
		id := w.ID()
		if collapsing[id] || len(kept[id]) == 0 || kept[id][0].entry == last {
			continue
		}
		if !rootless[id] && chain[id] <= len(prompt.Full(w, w.View()).Render())+rewholeSlack {
			continue
		}
		c.whole = append(c.whole, w)
		for _, p := range kept[id] {
			c.drop[p] = true
		}
	}
	for p := range c.drop {
		if p.entry < last {
			c.early++
		}
	}
	return c
}

// rebase applies the cut to history: one request whose tail after the
// first dropped rendering is not cached, and smaller requests from then on.
func (v *views) rebase(history []entry) {
	c := v.cut(history)
	for i := range history {
		e := &history[i]
		kept := e.Elements[:0:0]
		for j, el := range e.Elements {
			if !c.drop[at{i, j}] {
				kept = append(kept, el)
			}
		}
		if len(kept) != len(e.Elements) {
			e.Elements, e.content = kept, ""
		}
	}
	last := &history[len(history)-1]
	for _, w := range c.collapse {
		s := v.shown[w.ID()]
		s.collapsed = true
		el := prompt.Element{Window: w, Attr: `collapsed="true"`,
			Content: fmt.Sprintf("not shown: unused for %d steps; any action on it (view() for a file) shows it again", v.step-s.lastUsed)}
		v.add(last, element{ID: w.ID(), Text: el.Render(), Full: true})
	}
	for _, w := range c.whole {
		cur := w.View()
		if s := v.shown[w.ID()]; s != nil {
			s.view, s.acked = cur, false
		}
		v.add(last, element{ID: w.ID(), Text: prompt.Full(w, cur).Render(), Full: true})
	}
	v.rebases++
}

// rebasePlan is what a rebase now would do to the request.
type rebasePlan struct {
	total   int // the request's bytes as it stands
	prefix  int // bytes before the first rendering a rebase drops: still cached after it
	dropped int // bytes of the renderings it drops
	added   int // bytes it renders in the last message
}

// saved is what the rebase takes off this request and every later one.
func (p rebasePlan) saved() int { return p.dropped - p.added }

// plan measures a rebase of history now; ok is false when it would drop
// nothing.
func (v *views) plan(systemSize int, history []entry) (p rebasePlan, ok bool) {
	c := v.cut(history)
	if c.early == 0 {
		return p, false
	}
	p.total, p.prefix = systemSize, -1
	for i := range history {
		e := &history[i]
		if p.prefix < 0 {
			kept := p.total + len(e.Text) + len("\n\n<windows>\n")
			for j, el := range e.Elements {
				if c.drop[at{i, j}] {
					p.prefix = kept
					break
				}
				kept += len(el.Text) + 1
			}
		}
		for j, el := range e.Elements {
			if c.drop[at{i, j}] {
				p.dropped += len(el.Text) + 1
			}
		}
		p.total += e.size()
	}
	p.added = 200 * len(c.collapse)
	for _, w := range c.whole {
		p.added += len(prompt.Full(w, w.View()).Render()) + 1
	}
	return p, true
}
