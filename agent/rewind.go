package agent

import "fmt"

// RewindTranscript starts the branch a rewind continues: a new transcript
// holding the parent's turns before question (so its history is what the
// model was sent before that question, byte for byte, and the provider's
// cache still holds it), under a meta record naming the parent. Question
// 1 gives a branch with no turn. The parent keeps every turn: the
// conversation left behind stays reachable.
func RewindTranscript(dir, parentPath string, question int, secret string) (*Transcript, Session, error) {
	if question < 1 {
		return nil, Session{}, fmt.Errorf("%w: questions count from 1, got %d", ErrNoSuchTurn, question)
	}
	return forkTranscript(dir, parentPath, question-1, secret)
}

// create writes the file and its meta record now, if not yet written.
func (t *Transcript) create() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f != nil {
		return nil
	}
	return t.createLocked()
}
