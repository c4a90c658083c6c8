package shell

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestTaskEnds(t *testing.T) {
	for _, tc := range []struct {
		name, cmd string
		state     TaskState
		code      int
		tail      string
	}{
		{"completed", "echo one; echo two", TaskCompleted, 0, "one\ntwo\n"},
		{"failed", "echo oops >&2; exit 3", TaskFailed, 3, "oops\n"},
		{"progress", `printf '10%%\r50%%\r100%%\n'`, TaskCompleted, 0, "100%\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task, err := StartTask(tc.cmd, t.TempDir(), 1000)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(task.ID(), "task_") || task.Command() != tc.cmd {
				t.Errorf("id %q command %q", task.ID(), task.Command())
			}
			<-task.Done()
			if task.State() != tc.state || task.ExitCode() != tc.code {
				t.Errorf("state %s exit %d, want %s %d", task.State(), task.ExitCode(), tc.state, tc.code)
			}
			if got := task.Tail(100); got != tc.tail {
				t.Errorf("tail %q, want %q", got, tc.tail)
			}
			if got := task.Output(1000); got != tc.tail {
				t.Errorf("output %q, want %q", got, tc.tail)
			}
			first := task.Elapsed()
			time.Sleep(2 * time.Millisecond)
			if first <= 0 || task.Elapsed() != first {
				t.Errorf("elapsed %v should be fixed once done", task.Elapsed())
			}
			if err := task.Kill(); err != nil || task.State() != tc.state {
				t.Errorf("Kill after the end: %v, state %s", err, task.State())
			}
		})
	}
}

func TestTaskIDsUnique(t *testing.T) {
	a, err := StartTask("true", t.TempDir(), 100)
	if err != nil {
		t.Fatal(err)
	}
	b, err := StartTask("true", t.TempDir(), 100)
	if err != nil {
		t.Fatal(err)
	}
	<-a.Done()
	<-b.Done()
	if a.ID() == b.ID() {
		t.Errorf("two tasks with id %q", a.ID())
	}
}

func TestTaskKill(t *testing.T) {
	fifo, started := startFIFO(t)
	task, err := StartTask("sleep 30 & echo $(ps -o pgid= $$) > "+quoteForBash(fifo)+"; echo running; sleep 30; wait", t.TempDir(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	pgid := leadingInt(t, <-started)
	if task.State() != TaskRunning || task.ExitCode() != -1 {
		t.Errorf("before kill: state %s exit %d", task.State(), task.ExitCode())
	}
	if err := task.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-task.Done():
	default:
		t.Error("Done not closed after Kill returned")
	}
	if task.State() != TaskKilled {
		t.Errorf("state %s, want killed", task.State())
	}
	if live := liveGroupProcs(t, pgid); len(live) > 0 {
		t.Errorf("processes of the group survived Kill: %q", live)
	}
}

// A task that ended leaves nothing behind: what it started in the
// background, in its group or not, ends with it; Kill afterwards keeps the
// state.
func TestTaskLeavesNothingBehind(t *testing.T) {
	task, err := StartTask("sleep 30 >/dev/null 2>&1 & echo $!; setsid sleep 31 >/dev/null 2>&1 & echo $!", t.TempDir(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	<-task.Done()
	if task.State() != TaskCompleted {
		t.Errorf("state %s", task.State())
	}
	for _, f := range strings.Fields(task.Tail(100)) {
		pid, _ := strconv.Atoi(f)
		if pid > 0 && alive(pid) {
			t.Errorf("process %d outlived its task", pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if err := task.Kill(); err != nil || task.State() != TaskCompleted {
		t.Errorf("Kill after the end: %v, state %s", err, task.State())
	}
}

// alive reports whether pid runs (zombies do not count).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	st, _, ok := parseProcStat(string(b))
	return ok && st != 'Z' && st != 'X'
}
