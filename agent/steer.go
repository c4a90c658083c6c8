package agent

import "strings"

// Steering: messages the person sends while a turn runs join it. The loop
// drains them before each model request and appends each as a user
// message after the results of the batch in flight — appended, never
// rewriting what was sent, so the provider's prompt cache still holds.

// steerNote opens a steered message in the history: the model learns the
// words came while it worked, and the history tells them from questions.
const steerNote = "[The person wrote this while you were working:]\n"

// steerText is how a steered message reads in the history.
func steerText(text string) string { return steerNote + text }

// SteerOf returns the person's words of a steered history message, and
// whether text is one.
func SteerOf(text string) (string, bool) { return strings.CutPrefix(text, steerNote) }

// SetSteer gives the loop the source of the person's messages sent while
// a turn runs: take is called before each model request and returns the
// messages that arrived since (nil: none). The loop never waits on it.
func (a *Agent) SetSteer(take func() []string) { a.steer = take }

// takeSteers drains the steering source.
func (a *Agent) takeSteers() []string {
	if a.steer == nil {
		return nil
	}
	var out []string
	for _, t := range a.steer() {
		if strings.TrimSpace(t) != "" {
			out = append(out, t)
		}
	}
	return out
}
