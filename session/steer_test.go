package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/internal/fakeai"
)

// waitFor polls cond (the state of a real turn in another goroutine).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// gate is a command that runs until the test creates the file go.
const gate = `{"command":"while [ ! -f go ]; do sleep 0.02; done; echo gate-passed"}`

func TestSteering(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cancel bool
	}{
		{"reaches the next request", false},
		{"cancel lists it unread", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeai.New(t,
				fakeai.Reply{Content: call("launcher", "open", `{"app":"bash"}`)},
				fakeai.Reply{Content: call("bash_1", "run", gate)},
				fakeai.Reply{Content: "done, with the date"},
			)
			s, live := watched(t, srv)
			if _, _, err := s.Send("count the files"); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the gated command", func() bool { return len(srv.Requests()) == 2 && s.State() == StateExecuting })
			for _, text := range []string{"also print the date", "and be brief"} {
				n, steered, err := s.Send(text)
				if err != nil || !steered || n != 1 {
					t.Fatalf("Send during the turn: %d %v %v", n, steered, err)
				}
			}
			if tc.cancel {
				s.Cancel()
			} else {
				os.WriteFile(filepath.Join(s.workdir, "go"), nil, 0o644)
			}
			evs := collect(t, live, "result")
			res := evs[len(evs)-1].Data
			var steers []map[string]any
			for _, ev := range evs {
				if ev.Type == "steer" {
					steers = append(steers, ev.Data)
				}
			}
			if tc.cancel {
				var unread []string
				for _, u := range res["unread"].([]any) {
					unread = append(unread, u.(string))
				}
				if strings.Join(unread, "|") != "also print the date|and be brief" || len(steers) != 0 {
					t.Fatalf("cancelled: unread %v, steer events %v", res["unread"], steers)
				}
				if len(srv.Requests()) != 2 {
					t.Errorf("%d requests after cancel", len(srv.Requests()))
				}
				s.Wait()
				if q := s.Queued(); q != "" {
					t.Errorf("dropped messages still queued: %q", q)
				}
				return
			}
			if len(steers) != 2 || steers[0]["step"] != 3.0 || steers[0]["turn"] != 1.0 || steers[1]["text"] != "and be brief" {
				t.Fatalf("steer events %v", steers)
			}
			msgs := srv.Requests()[2].Messages
			n := len(msgs)
			if !strings.Contains(msgs[n-3].Content, "gate-passed") || !strings.Contains(msgs[n-2].Content, "also print the date") ||
				!strings.Contains(msgs[n-1].Content, "and be brief") || msgs[n-1].Role != "user" {
				t.Fatalf("third request ends %q / %q / %q", msgs[n-3].Content, msgs[n-2].Content, msgs[n-1].Content)
			}
			if _, ok := res["unread"]; ok {
				t.Errorf("unread in a turn that saw everything: %v", res["unread"])
			}
			s.Wait()
			info := s.Info()
			if len(info.Turns) != 1 || len(info.Turns[0].Steers) != 2 || len(info.Turns[0].Actions) != 2 ||
				!strings.Contains(info.Turns[0].Actions[1].Output, "gate-passed") {
				t.Fatalf("turns %+v", info.Turns)
			}
		})
	}
}

// A message that arrives while the turn's last request is answered starts
// the next turn once it ends.
func TestSteerAfterLastRequestStartsNextTurn(t *testing.T) {
	srv := fakeai.New(t,
		fakeai.Reply{Content: "first answer", Delay: 300 * time.Millisecond},
		fakeai.Reply{Content: "second answer"},
	)
	s, live := watched(t, srv)
	s.Send("one")
	waitFor(t, "the first request", func() bool { return len(srv.Requests()) == 1 })
	if n, steered, err := s.Send("two"); err != nil || !steered || n != 1 {
		t.Fatalf("Send: %d %v %v", n, steered, err)
	}
	collect(t, live, "result")
	evs := collect(t, live, "result")
	var turn map[string]any
	for _, ev := range evs {
		if ev.Type == "turn" {
			turn = ev.Data
		}
	}
	if turn == nil || turn["turn"] != 2.0 || turn["question"] != "two" || evs[len(evs)-1].Data["result"] != "second answer" {
		t.Fatalf("next turn %v, result %v", turn, evs[len(evs)-1].Data)
	}
}

func TestAttachedSessionTakesOnlySteers(t *testing.T) {
	srv := fakeai.New(t)
	f, work := newFactory(t, srv)
	s := opened(t, f, work)
	s.Attach()
	if _, _, err := s.Send("hi"); !errors.Is(err, ErrAttached) {
		t.Fatalf("Send to an idle attached session: %v", err)
	}
}
