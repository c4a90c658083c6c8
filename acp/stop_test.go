package acp

import (
	"testing"

	"github.com/aci-dev/aci/session"
)

// ACP's stop reasons are read off the session's result, which alone
// decides how a turn ended.
func TestStopReasonFromOutcome(t *testing.T) {
	for _, tc := range []struct {
		res  session.Result
		want string // "" for an error
	}{
		{session.Result{Outcome: session.Answered}, stopEndTurn},
		{session.Result{Outcome: session.Interrupted, Error: "interrupted"}, stopCancel},
		{session.Result{Outcome: session.LimitReached, Limit: session.LimitSteps, Error: "step limit"}, stopMaxTurns},
		{session.Result{Outcome: session.Failed, Cause: session.CauseRefused, Error: "refused"}, stopRefusal},
		{session.Result{Outcome: session.LimitReached, Limit: "budget", Error: "budget reached"}, stopMaxTurns},
		{session.Result{Outcome: session.LimitReached, Limit: "loop", Error: "stopped a loop"}, stopMaxTurns},
		{session.Result{Outcome: session.Failed, Error: "the model server is down"}, ""},
	} {
		got, err := stopOf(tc.res)
		if tc.want == "" {
			if re, ok := err.(*rpcError); !ok || re.Message != tc.res.Error {
				t.Errorf("%+v: %v, %v; want the error %q", tc.res, got, err, tc.res.Error)
			}
			continue
		}
		if r, ok := got.(promptResult); !ok || err != nil || r.StopReason != tc.want {
			t.Errorf("%+v: %v, %v; want %s", tc.res, got, err, tc.want)
		}
	}
}
