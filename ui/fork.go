package ui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// cmdFork continues in a new branch of this session: its history is the
// first turns of this one (all of them by default); this session stays as
// it was, and --resume reaches both.
func (r *REPL) cmdFork(arg string) bool {
	if r.branch == nil {
		r.out.fail("/fork: branches need a session transcript, and this session has none")
		return false
	}
	done := len(r.sess.Info().Turns)
	turn := done
	if arg != "" {
		n, err := strconv.Atoi(strings.TrimSpace(arg))
		if err != nil || n < 1 {
			r.out.fail(fmt.Sprintf("/fork: the turn must be a number from 1 to %d", done))
			return false
		}
		turn = n
	}
	if turn < 1 || turn > done {
		r.out.fail(fmt.Sprintf("/fork: this session has %s; fork from one of them", plural(done, "finished turn")))
		return false
	}
	parent := r.sess
	b, err := r.branch(context.Background(), parent, turn)
	if err != nil {
		r.out.fail("/fork: " + err.Error())
		return false
	}
	r.use(b)
	parent.Close()
	r.out.note(fmt.Sprintf("now on branch %s: the first %s of %s (aci --resume %s goes back to it)", b.ID(), plural(turn, "turn"), parent.ID(), parent.ID()))
	return false
}
