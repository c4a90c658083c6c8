package shell

// KeptBack are the workspace's secret files the ended task tried to read,
// which the sandbox kept back from it (see RunResult.KeptBack).
func (t *Task) KeptBack() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.kept
}
