package agent

import (
	"slices"
)

// What a transcript does not write twice. A window rendered again as it
// was written before (every window is shown whole again to the model
// after a resume, and a reopened one as it was first shown) is written as
// a reference, {"id":…,"same":n}: the n-th most recent of the texts
// written for that window. A windows record is written only when the list
// changed. The writer and the reader keep the same memory, in the file's
// order: the last few texts of each window in message and rewrite
// records, and the last windows list (a reset forgets it).

// keptTexts is how many of a window's texts a reference can reach.
const keptTexts = 8

// rendered is, for each window id, the texts last written for it (read
// back), most recent first, each once, up to keptTexts.
type rendered map[string][]string

// use moves text to the front of id's texts, as the one written last.
func (m rendered) use(id, text string, at int) {
	list := m[id]
	if at < 0 {
		if len(list) < keptTexts {
			list = append(list, "")
		}
		at = len(list) - 1
	}
	copy(list[1:at+1], list[:at])
	list[0] = text
	m[id] = list
}

// refer is els as written: each element whose text was written before
// for its window a reference. els is the live history's, so it is copied
// before any change; changed reports whether it was.
func (m rendered) refer(els []element) (_ []element, changed bool) {
	var out []element
	for i, el := range els {
		at := slices.Index(m[el.ID], el.Text)
		m.use(el.ID, el.Text, at)
		if at < 0 || el.Text == "" {
			continue
		}
		if out == nil {
			out = slices.Clone(els)
		}
		out[i].Text, out[i].Same = "", at+1
	}
	if out == nil {
		return els, false
	}
	return out, true
}

// resolve gives the references in els, as read, their texts back, in
// place; it reports false for a reference to a text not written before (a
// damaged transcript).
func (m rendered) resolve(els []element) bool {
	ok := true
	for i := range els {
		el := &els[i]
		at := -1
		if el.Same > 0 {
			if list := m[el.ID]; el.Same <= len(list) {
				at = el.Same - 1
				el.Text = list[at]
			} else {
				ok = false
			}
			el.Same = 0
		} else {
			at = slices.Index(m[el.ID], el.Text)
		}
		m.use(el.ID, el.Text, at)
	}
	return ok
}

// referHistory is refer for a rewrite's whole history.
func (m rendered) referHistory(h []entry) []entry {
	var out []entry
	for i, e := range h {
		els, changed := m.refer(e.Elements)
		if !changed {
			continue
		}
		if out == nil {
			out = slices.Clone(h)
		}
		out[i].Elements = els
	}
	if out == nil {
		return h
	}
	return out
}

// resolveHistory is resolve for a rewrite's whole history.
func (m rendered) resolveHistory(h []entry) bool {
	ok := true
	for i := range h {
		ok = m.resolve(h[i].Elements) && ok
	}
	return ok
}

// compactLocked makes r as it is written: references for windows rendered
// as last written. It reports false for a windows record that repeats the
// last one, which is not written.
func (t *recordLog) compactLocked(r *Record) bool {
	switch r.Type {
	case "message":
		r.Elements, _ = t.rendered.refer(r.Elements)
	case "rewrite":
		r.History = t.rendered.referHistory(r.History)
	case "reset":
		t.windows = nil // as a reader forgets them
	case "windows":
		if !t.windowsLost && slices.Equal(t.windows, r.Windows) {
			return false
		}
		t.windows, t.windowsLost = slices.Clone(r.Windows), false
	}
	return true
}

// forgetLocked is the memory after a record failed to be written (its
// line may be torn, and dropped when read): what it held may not be in
// the file, so the next elements and windows are written whole.
func (t *recordLog) forgetLocked() {
	t.rendered, t.windowsLost = rendered{}, true
}
