package agent

import (
	"fmt"
	"reflect"

	"github.com/aci-dev/aci/transcript"
	"github.com/aci-dev/aci/windows"
)

// RewindTranscript starts the branch a rewind continues: a new transcript
// holding the parent's turns before question (so its history is what the
// model was sent before that question, byte for byte, and the provider's
// cache still holds it), under a meta record naming the parent. Question
// 1 gives a branch with no turn. The parent keeps every turn: the
// conversation left behind stays reachable.
func RewindTranscript(dir, parentPath string, question int, secret string) (*transcript.File, Session, error) {
	if question < 1 {
		return nil, Session{}, fmt.Errorf("%w: questions count from 1, got %d", ErrNoSuchTurn, question)
	}
	return forkTranscript(dir, parentPath, question-1, secret)
}

// ViewsBefore is what the model had been shown of each window just before
// question n, when this process asked it (nil otherwise). A rewind hands
// it to the branch (AdoptViews) so that windows reopened as they were are
// not shown again: the next request adds only the question.
func (a *Agent) ViewsBefore(n int) map[string]windows.View {
	m, ok := a.conv.markOf(n)
	if !ok {
		return nil
	}
	return m.views
}

// AdoptViews takes views as what the model knows of the windows open now
// whose view is still exactly that; the others are shown afresh as after
// any restore. Call it right after Restore or Resume, before a turn.
func (a *Agent) AdoptViews(views map[string]windows.View) { a.conv.views.adopt(views) }

// snapshot is what the history shows of each window now, for a question's
// mark; a collapsed window is left out (it is shown whole again).
func (v *views) snapshot() map[string]windows.View {
	out := make(map[string]windows.View, len(v.shown))
	for id, s := range v.shown {
		if !s.collapsed {
			out[id] = s.view
		}
	}
	return out
}

// adopt marks each open window whose view equals the one given as shown.
func (v *views) adopt(views map[string]windows.View) {
	for _, w := range v.wm.Windows() {
		id := w.ID()
		was, ok := views[id]
		if !ok || v.shown[id] != nil {
			continue
		}
		if cur := w.View(); reflect.DeepEqual(cur, was) {
			v.shown[id] = &shown{view: cur, lastUsed: v.step}
			delete(v.orphans, id)
		}
	}
}
