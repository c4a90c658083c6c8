package shell

import (
	"fmt"
	"github.com/aci-dev/aci/tools/output"
	"github.com/aci-dev/aci/tools/secrets"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aci-dev/aci/tools/sandbox"
)

// TaskState is where a background task stands.
type TaskState string

// Task states. A task is completed when it exited 0 and failed otherwise,
// unless Kill ended it.
const (
	TaskRunning   TaskState = "running"
	TaskCompleted TaskState = "completed"
	TaskFailed    TaskState = "failed"
	TaskKilled    TaskState = "killed"
)

// taskSeq numbers tasks across the process, so ids stay unique even across
// windows.
var taskSeq atomic.Int64

// Task is a command running in the background with bash -c in its own
// process group. Its output is kept like RunCommand's, bounded by the limit
// it was started with.
type Task struct {
	id      string
	command string
	start   time.Time
	out     *output.Capture
	p       *shellProc
	done    chan struct{}

	mu       sync.Mutex
	end      time.Time
	state    TaskState
	exitCode int
	killing  bool     // Kill was called while it ran
	note     string   // set at the end when containment may explain a failure
	limit    string   // set at the end when a resource limit stopped it
	moved    []string // protected files it created, moved away at the end
	kept     []string // secret files it tried to read, kept back (kept.go)
	keptDone func() []string
	sb       *sandbox.Sandbox
	dir      string
	secrets  *secrets.Redactor // kept out of what the task shows
}

// StartTask starts command in dir ("" = the current directory) and returns
// at once. limit (<= 0: DefaultOutputLimit) bounds the output kept at each
// end. The task runs until it exits or Kill is called; no context, since it
// is meant to outlive the call that started it.
func StartTask(command, dir string, limit int) (*Task, error) {
	return startTask(command, dir, limit, nil, netOpts{})
}

// startTask is StartTask contained by sb (nil: not contained).
func startTask(command, dir string, limit int, sb *sandbox.Sandbox, net netOpts) (*Task, error) {
	if limit <= 0 {
		limit = output.DefaultOutputLimit
	}
	d, err := resolveWorkDir(dir)
	if err != nil {
		return nil, fmt.Errorf("start task: %w", err)
	}
	out := output.NewCapture(limit, limit)
	t := &Task{
		id:       "task_" + strconv.FormatInt(taskSeq.Add(1), 10),
		command:  command,
		start:    time.Now(),
		out:      out,
		done:     make(chan struct{}),
		state:    TaskRunning,
		exitCode: -1,
		sb:       sb,
		dir:      d,
		secrets:  net.secrets,
	}
	t.keptDone = sb.WatchKept()
	t.p, err = startShellProc(command, d, tee(out, net.live, t.id), sb, net, nil, "")
	if err != nil {
		t.keptDone()
		return nil, fmt.Errorf("start task: %w", err)
	}
	go t.watch()
	return t, nil
}

// watch records how the task ended once bash exited and the output drained.
func (t *Task) watch() {
	t.p.finish()
	t.mu.Lock()
	t.end = time.Now()
	t.exitCode = t.p.exitCode()
	t.limit = t.p.limitHit(t.out.Text(0))
	t.moved = t.p.created
	t.kept = t.keptDone()
	switch {
	case t.killing:
		t.state = TaskKilled
	case t.limit != "":
		t.state = TaskFailed
	case t.exitCode != 0:
		t.note = t.sb.Explain(t.out.Text(0), t.exitCode, t.dir)
		if t.note == "" {
			t.note = netNote(t.p.denied)
		}
		t.state = TaskFailed
	case t.exitCode == 0:
		t.state = TaskCompleted
	default:
		t.state = TaskFailed
	}
	t.mu.Unlock()
	close(t.done)
}

// ID is the task's id, "task_N", unique in this process.
func (t *Task) ID() string { return t.id }

// Command is the command line the task runs.
func (t *Task) Command() string { return t.command }

// State is running until the task ended, then completed, failed or killed.
func (t *Task) State() TaskState {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state
}

// ExitCode is the exit status once the task ended (128+n when signal n
// ended it), -1 while it runs.
func (t *Task) ExitCode() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.exitCode
}

// Elapsed is how long the task has run, or ran.
func (t *Task) Elapsed() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.end.IsZero() {
		return time.Since(t.start)
	}
	return t.end.Sub(t.start)
}

// Tail is about the last n bytes of output as clean text, for progress.
func (t *Task) Tail(n int) string { return t.redacted(t.out.Tail(n)) }

// redacted removes secrets from out.
func (t *Task) redacted(out string) string { return t.secrets.Redact(out) }

// Containment says why the sandbox likely made the ended task fail, or "".
func (t *Task) Containment() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.note
}

// Limit names the resource limit that stopped the ended task, or "".
func (t *Task) Limit() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.limit
}

// ProtectedMoved are the protected files the ended task created, which
// were moved out of the workspace.
func (t *Task) ProtectedMoved() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.moved
}

// Output is the whole output so far, cut to limit with the truncation note.
func (t *Task) Output(limit int) string { return t.redacted(t.out.Text(limit)) }

// Total is the number of bytes the task wrote so far.
func (t *Task) Total() int64 { return t.out.Total() }

// Done is closed when the task has ended and its state is final.
func (t *Task) Done() <-chan struct{} { return t.done }

// Kill ends the task's whole process group and waits until the task has
// ended. A running task becomes killed; killing a task that already ended
// keeps its state but still ends processes it left behind in its group.
func (t *Task) Kill() error {
	t.mu.Lock()
	if t.state == TaskRunning {
		t.killing = true
	}
	t.mu.Unlock()
	err := t.p.killGroup()
	<-t.done
	if err != nil {
		return fmt.Errorf("kill %s: %w", t.id, err)
	}
	return nil
}
