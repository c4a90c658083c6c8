package agent

import (
	"fmt"

	"github.com/aci-dev/aci/prompt"
	"github.com/aci-dev/aci/windows"
)

const (
	// collapseAfter is how many model steps a window may go untouched
	// before a rebase shows it as one line.
	collapseAfter = 8
)

// shown is what the history shows of one window.
type shown struct {
	view      windows.View
	lastUsed  int  // the step the window was last acted on or changed
	acked     bool // the window was told the model saw view
	collapsed bool
}

// views decides which window renderings a request carries: after each
// batch only what changed, and now and then a rebase.
type views struct {
	wm    *windows.Manager
	shown map[string]*shown
	// orphans are windows rendered in a restored history that may no
	// longer be open: each gets a closed rendering if so.
	orphans map[string]bool
	// base holds the view of a window not yet shown, taken just before the
	// first action on it: a window opened and used in one batch is shown as
	// it opened, then with what its actions changed (two runs both whole).
	base    map[string]windows.View
	step    int
	rebases int
	redact  func(string) string
}

func newViews(wm *windows.Manager, redact func(string) string) *views {
	return &views{wm: wm, shown: map[string]*shown{}, orphans: map[string]bool{}, base: map[string]windows.View{}, redact: redact}
}

// add appends a rendering to e, secrets removed.
func (v *views) add(e *entry, el element) {
	el.Image = v.picture(el)
	el.Text = v.redact(el.Text)
	e.Elements = append(e.Elements, el)
}

// touch records an action on a window: a collapsed window comes back.
func (v *views) touch(id string) {
	if _, ok := v.base[id]; !ok && v.shown[id] == nil {
		for _, w := range v.wm.Windows() {
			if w.ID() == id {
				v.base[id] = w.View()
			}
		}
	}
	if s := v.shown[id]; s != nil {
		s.lastUsed = v.step
		if s.collapsed {
			s.collapsed = false
			s.view = windows.View{} // render it whole again
		}
	}
}

// refresh appends to e a rendering of every window that changed since the
// history last showed it, and a closed rendering of every window gone.
func (v *views) refresh(e *entry) {
	open := map[string]bool{}
	for _, w := range v.wm.Windows() {
		id := w.ID()
		open[id] = true
		cur := w.View()
		s := v.shown[id]
		if s == nil {
			v.shown[id] = &shown{view: cur, lastUsed: v.step}
			if base, ok := v.base[id]; ok {
				v.add(e, element{ID: id, Text: prompt.Full(w, base).Render(), Full: true})
				if el, changed := v.change(w, base, cur); changed {
					v.add(e, el)
				}
				continue
			}
			v.add(e, element{ID: id, Text: prompt.Full(w, cur).Render(), Full: true})
			continue
		}
		if s.collapsed {
			continue
		}
		if el, changed := v.change(w, s.view, cur); changed {
			s.lastUsed = v.step
			v.add(e, el)
		}
		// What the model knows now matches cur, shown or not (a touched
		// file with the same lines); the window hears of it once sent.
		s.view, s.acked = cur, false
	}
	for id := range v.shown {
		if !open[id] {
			delete(v.shown, id)
			v.add(e, closedElement(id))
		}
	}
	clear(v.base)
	for id := range v.orphans {
		if !open[id] {
			v.add(e, closedElement(id))
		}
		delete(v.orphans, id)
	}
}

// change renders what changed between two views of w, if anything did.
func (v *views) change(w windows.Window, prev, cur windows.View) (element, bool) {
	if prev.Content == "" && prev.State == nil {
		return element{ID: w.ID(), Text: prompt.Full(w, cur).Render(), Full: true}, true
	}
	if inc, ok := w.(windows.Incremental); ok {
		text, ok := inc.Changes(prev, cur)
		switch {
		case ok && text == "":
			return element{}, false
		case ok:
			el := prompt.Element{Window: w, Attr: `update="changes"`, Content: text}
			return element{ID: w.ID(), Text: el.Render()}, true
		}
	}
	if prev.Content == cur.Content {
		return element{}, false
	}
	return element{ID: w.ID(), Text: prompt.Full(w, cur).Render(), Full: true}, true
}

func closedElement(id string) element {
	return element{ID: id, Text: fmt.Sprintf(`<window id="%s" closed="true"></window>`, id), Full: true}
}

// sent tells each window which view the model has now been sent.
func (v *views) sent() {
	for _, w := range v.wm.Windows() {
		s := v.shown[w.ID()]
		if s == nil || s.acked || s.collapsed {
			continue
		}
		if o, ok := w.(windows.Observer); ok {
			o.Seen(s.view)
		}
		s.acked = true
	}
}

// rerender appends to last a whole rendering of every open window whose
// latest rendering in last is not whole, after the history before last
// lost its renderings (a rebase or a compression). Windows untouched for
// collapseAfter steps are shown as one line.
func (v *views) rerender(last *entry) {
	whole := map[string]bool{}
	for _, el := range last.Elements {
		whole[el.ID] = el.Full
	}
	for _, w := range v.wm.Windows() {
		id := w.ID()
		s := v.shown[id]
		cur := w.View()
		if s == nil {
			s = &shown{lastUsed: v.step}
			v.shown[id] = s
		}
		if whole[id] && !s.collapsed {
			continue
		}
		if id != "launcher" && v.step-s.lastUsed >= collapseAfter {
			s.collapsed = true
			el := prompt.Element{Window: w, Attr: `collapsed="true"`,
				Content: fmt.Sprintf("not shown: unused for %d steps; any action on it (view() for a file) shows it again", v.step-s.lastUsed)}
			v.add(last, element{ID: id, Text: el.Render(), Full: true})
			continue
		}
		s.collapsed = false
		s.view, s.acked = cur, false
		v.add(last, element{ID: id, Text: prompt.Full(w, cur).Render(), Full: true})
	}
}
