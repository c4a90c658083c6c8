package agent

import "github.com/aci-dev/aci/transcript"

// testLog is a new transcript with the conversation's writer over it, as
// a session's agent writes one.
type testLog struct {
	*transcript.File
	rec *recordLog
}

// Write writes r as the conversation does.
func (l *testLog) Write(r Record) error { return l.rec.write(r) }

func newTestLog(dir, workdir, model, secret string) (*testLog, error) {
	f, err := transcript.New(dir, transcript.Meta{Workdir: workdir, Model: model}, secret)
	if err != nil {
		return nil, err
	}
	return &testLog{File: f, rec: newRecordLog(f, Session{})}, nil
}
