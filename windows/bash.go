package windows

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aci-dev/aci/guard"
	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/gitscan"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/shell"
)

const (
	defaultTimeout = 120 * time.Second
	maxTimeout     = 600 * time.Second
	taskTailBytes  = 1500
	keptRuns       = 5
	keptTasks      = 8
)

// BashApp opens bash windows: a shell whose working directory follows cd,
// that runs commands in the foreground or in the background.
func BashApp(env *Env) App {
	return pathApp(env, "bash", "run shell commands (bash -c); cd sticks", "optional working dir", openBash)
}

func openBash(_ context.Context, env *Env, id, target string) (Window, string, error) {
	dir := env.Workdir
	if target != "" {
		dir = target
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(env.Workdir, dir)
		}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, "", fmt.Errorf("working directory %s does not exist or is not a folder", target)
	}
	sh, err := shell.NewContainedShell(dir, sandbox.For(env.Workdir))
	if err != nil {
		return nil, "", err
	}
	return &bashWindow{env: env, id: id, shell: sh}, "", nil
}

type bashRun struct {
	seq     int // counts the window's runs from 1
	command string
	res     shell.RunResult
	hints   string // notes for the model after the output
}

type bashWindow struct {
	env   *Env
	id    string
	shell *shell.Shell

	mu    sync.Mutex
	seq   int
	seen  int // the last run the model was sent (Seen)
	runs  []*bashRun
	tasks []*shell.Task
	asked string // what the last git check before a command asked (bash_publish.go)
}

func (w *bashWindow) ID() string    { return w.id }
func (w *bashWindow) App() string   { return "bash" }
func (w *bashWindow) Title() string { return w.shell.Dir() }

func (w *bashWindow) Actions() []Action {
	return []Action{
		{ID: "run", Desc: "run and wait (timeout default 120, max 600)", Mode: Sync, Run: w.run, Params: []Param{
			{Name: "command", Type: String, Required: true},
			{Name: "timeout_s", Type: Integer},
			{Name: "uncontained", Type: Boolean, Desc: "run outside the sandbox (asks the person)"},
			readParam,
		}},
		{ID: "start", Desc: "run in the background", Mode: Async, Run: w.start, Params: []Param{
			{Name: "command", Type: String, Required: true},
			{Name: "uncontained", Type: Boolean, Desc: "run outside the sandbox (asks the person)"},
			readParam,
		}},
		{ID: "kill", Desc: "end a background task", Mode: Sync, Run: w.kill, Params: []Param{
			{Name: "task_id", Type: String, Required: true},
		}},
		closeAction("also ends its tasks"),
	}
}

// Close ends every background task of the window.
func (w *bashWindow) Close() {
	w.mu.Lock()
	tasks := append([]*shell.Task(nil), w.tasks...)
	w.mu.Unlock()
	for _, t := range tasks {
		if t.State() == shell.TaskRunning {
			t.Kill()
		}
	}
	w.shell.Close()
}

// bashState is what a view of the window showed: the runs up to lastSeq,
// and the background tasks as rendered.
type bashState struct {
	lastSeq int
	tasks   string
}

// View shows the latest run with its output, and every run the model was
// not yet sent (one batch may run several), the older kept runs as one
// line each, and the background tasks. A whole rendering therefore never
// loses an output the model has not read, whichever path renders it (a
// rebase, a compression, a first sight of the window).
func (w *bashWindow) View() View {
	w.mu.Lock()
	defer w.mu.Unlock()
	var b strings.Builder
	if len(w.runs) == 0 && len(w.tasks) == 0 {
		b.WriteString("no command run yet (the title is the working directory)")
	}
	for i, r := range w.runs {
		if i < len(w.runs)-1 && r.seq <= w.seen {
			fmt.Fprintf(&b, "\n$ %s  → %s", oneLine(r.command), runStatus(r.res))
			continue
		}
		writeRun(&b, r)
	}
	tasks := w.tasksLocked()
	b.WriteString(tasks)
	return View{Content: strings.TrimLeft(b.String(), "\n"), State: bashState{lastSeq: w.seq, tasks: tasks}}
}

// Changes shows the runs made since prev, each with its whole output (two
// long runs in one batch both reach the model), and the tasks if they
// changed.
func (w *bashWindow) Changes(prev, cur View) (string, bool) {
	p, ok1 := prev.State.(bashState)
	c, ok2 := cur.State.(bashState)
	if !ok1 || !ok2 {
		return "", false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var b strings.Builder
	newRuns := 0
	for _, r := range w.runs {
		if r.seq > p.lastSeq && r.seq <= c.lastSeq {
			writeRun(&b, r)
			newRuns++
		}
	}
	if c.lastSeq-p.lastSeq > newRuns {
		return "", false // some new runs were already pruned: show it whole
	}
	if c.tasks != p.tasks {
		b.WriteString(c.tasks)
	}
	return strings.TrimLeft(b.String(), "\n"), true
}

// Seen records the runs the model was sent: from now on they are one line
// each in a whole rendering, but for the latest.
func (w *bashWindow) Seen(v View) {
	if st, ok := v.State.(bashState); ok {
		w.mu.Lock()
		w.seen = max(w.seen, st.lastSeq)
		w.pruneRuns()
		w.mu.Unlock()
	}
}

// pruneRuns forgets the oldest runs beyond keptRuns that the model was
// sent: an unsent run stays until it is, whatever the batch ran.
func (w *bashWindow) pruneRuns() {
	for len(w.runs) > keptRuns && w.runs[0].seq <= w.seen {
		w.runs = w.runs[1:]
	}
}

func writeRun(b *strings.Builder, r *bashRun) {
	fmt.Fprintf(b, "\n$ %s\n", r.command)
	if out := strings.TrimRight(r.res.Output, "\n"); out != "" {
		b.WriteString(out)
		b.WriteString("\n")
	}
	if r.hints != "" {
		b.WriteString(r.hints)
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "[%s]", runStatus(r.res))
}

func (w *bashWindow) tasksLocked() string {
	if len(w.tasks) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nBackground tasks:")
	for _, t := range w.tasks {
		fmt.Fprintf(&b, "\n- %s %s: %s", t.ID(), taskStatus(t), oneLine(t.Command()))
		if tail := strings.TrimRight(t.Tail(taskTailBytes), "\n"); tail != "" {
			b.WriteString("\n  output (last lines):\n")
			b.WriteString(indent(tail, "  "))
		}
		if why := t.Containment(); why != "" {
			b.WriteString("\n  " + containmentHint(why))
		}
		if why := t.Limit(); why != "" {
			b.WriteString("\n  " + limitHint(why))
		}
		if moved := t.ProtectedMoved(); len(moved) > 0 {
			b.WriteString("\n  " + protectedHint(moved))
		}
		if kept := w.keptText(t.KeptBack()); kept != "" {
			b.WriteString("\n  " + kept)
		}
	}
	return b.String()
}

func runStatus(r shell.RunResult) string {
	d := r.Duration.Round(10 * time.Millisecond)
	switch {
	case r.TimedOut:
		return fmt.Sprintf("killed after timeout (%s), exit %d", d, r.ExitCode)
	case r.Canceled:
		return fmt.Sprintf("interrupted after %s, exit %d", d, r.ExitCode)
	}
	return fmt.Sprintf("exit %d, %s", r.ExitCode, d)
}

func taskStatus(t *shell.Task) string {
	el := t.Elapsed().Round(time.Second)
	switch t.State() {
	case shell.TaskRunning:
		return fmt.Sprintf("running for %s", el)
	case shell.TaskKilled:
		return fmt.Sprintf("killed after %s", el)
	}
	return fmt.Sprintf("%s (exit %d) after %s", t.State(), t.ExitCode(), el)
}

// approve asks before a dangerous command, and before running one outside
// the sandbox while it is on; nil means it may run, with the options given:
// once allowed, a command asked about for what it writes outside the
// workspace gets just that access (bash_grant.go).
func (w *bashWindow) approve(ctx context.Context, command string, args Args) ([]shell.RunOption, *Result) {
	opts, _, _, refused := w.approveNamed(ctx, command, args)
	return opts, refused
}

// approveNamed is approve that also returns the machine's /tmp paths the
// command names, which it is shown (for privateTmpHint), and what a
// granted command is to change on the machine (bash_effects.go).
func (w *bashWindow) approveNamed(ctx context.Context, command string, args Args) ([]shell.RunOption, []string, grantEffects, *Result) {
	var opts []shell.RunOption
	v := w.env.Guard.Check(command, w.shell.Dir())
	grant, says, outside := w.grantFor(v, args.Bool("uncontained"))
	if why := w.publishWhy(ctx, command); why != "" {
		if v.Dangerous {
			v.Reason += "; and " + why
		} else {
			v = guard.Verdict{Dangerous: true, Reason: why}
		}
	}
	v.Reason += says
	if modeOpts, refused, ok := w.commandGate(ctx, &v, command, args.Bool("uncontained")); ok {
		return modeOpts, v.Machine, grantEffects{}, refused
	}
	if grant != nil {
		opts = append(opts, grant)
	}
	reads, readFiles, fail := w.readGrant(command, args, &v)
	if fail != nil {
		return nil, nil, grantEffects{}, fail
	}
	if reads != nil {
		opts = append(opts, reads)
	}
	if (args.Bool("uncontained") || outside) && w.shell.Contained() {
		opts = append(opts, shell.Uncontained())
	}
	if args.Bool("uncontained") && w.shell.Contained() {
		if v.Dangerous {
			v.Reason += "; and run outside the sandbox" + openNetwork(w.shell)
		} else {
			v = guard.Verdict{Dangerous: true, Reason: "run outside the sandbox" + openNetwork(w.shell)}
		}
	}
	eff := effectsOf(v, grant != nil && !outside && !args.Bool("uncontained"))
	if !v.Dangerous {
		return opts, v.Machine, eff, nil
	}
	return opts, v.Machine, eff, w.env.askReads(ctx, ApprovalRequest{Kind: protocol.AskCommand, WindowID: w.id, Subject: command, Reason: v.Reason, Part: v.Part}, readFiles)
}

func (w *bashWindow) run(ctx context.Context, args Args) Result {
	command := args.String("command")
	if strings.TrimSpace(command) == "" {
		return Fail("command is empty")
	}
	timeout := time.Duration(args.Int("timeout_s", int(defaultTimeout/time.Second))) * time.Second
	if timeout <= 0 {
		return Fail("timeout_s must be positive")
	}
	note := ""
	if timeout > maxTimeout {
		timeout, note = maxTimeout, " (timeout capped at 600 s; use start for longer jobs)"
	}
	opts, named, eff, refused := w.approveNamed(ctx, command, args)
	if refused != nil {
		return *refused
	}
	w.beforeCommand()
	check := w.shell.Sandbox().CheckEffects(eff.writes, eff.list)
	index := gitscan.IndexStamp(w.shell.Dir()) // for stagedWhy (bash_publish.go)
	res, err := w.shell.Run(ctx, command, timeout, w.env.OutputLimit, append(opts, w.netOption(command, false), w.liveOption(), shell.Secrets(w.env.Secrets))...)
	if err != nil && !res.Canceled {
		return Fail("%v", err)
	}
	plan := w.planContainment(&res)
	w.mu.Lock()
	w.seq++
	w.runs = append(w.runs, &bashRun{seq: w.seq, command: command, res: res, hints: joinHints(plan, runHints(res, timeout), w.privateTmpHint(res.Output, named))})
	w.pruneRuns()
	w.mu.Unlock()
	// The output reaches the model once, in the window's rendering that
	// follows the results; the result only says how the run ended.
	text := runStatus(res) + note
	if res.Limit != "" {
		text += "; stopped by " + res.Limit
	}
	if len(res.LinksOut) > 0 {
		text += "; made links out of the workspace: " + strings.Join(res.LinksOut, ", ")
	}
	if len(res.ProtectedMoved) > 0 {
		text += "; protected files it created or changed were moved out of the workspace or put back: " + strings.Join(res.ProtectedMoved, "; ")
	}
	if why := w.stagedWhy(ctx, index); why != "" {
		text += "; " + why
	}
	if kept := w.keptText(res.KeptBack); kept != "" {
		text += "; " + kept
	}
	missed := missedText(check, res)
	text += missed
	out := strings.TrimRight(res.Output, "\n")
	if out == "" {
		text += "; no output"
	} else {
		n := strings.Count(out, "\n") + 1
		text += fmt.Sprintf("; %d %s of output, shown in %s", n, plural(n, "line"), w.id)
	}
	code := res.ExitCode
	r := Result{Status: protocol.StatusOK, Text: text, Output: out, Failed: res.ExitCode != 0 || res.TimedOut || res.Canceled || missed != "", ExitCode: &code}
	if res.TimedOut || res.Canceled {
		// The command did not finish: the model must not read it as done.
		r.Status = protocol.StatusError
	}
	return r
}

// openNetwork says, for the question, that a command run outside the
// sandbox has the whole network, when inside it would not.
func openNetwork(sh *shell.Shell) string {
	if sh.Sandbox().NetContained() {
		return " (with the network open: it can reach any host)"
	}
	return ""
}

// plural returns word, with an s unless n is 1.
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

func (w *bashWindow) start(ctx context.Context, args Args) Result {
	command := args.String("command")
	if strings.TrimSpace(command) == "" {
		return Fail("command is empty")
	}
	opts, refused := w.approve(ctx, command, args)
	if refused != nil {
		return *refused
	}
	w.beforeCommand()
	t, err := w.shell.Start(command, w.env.OutputLimit, append(opts, w.netOption(command, true), w.liveOption(), shell.Secrets(w.env.Secrets))...)
	if err != nil {
		return Fail("%v", err)
	}
	w.mu.Lock()
	w.tasks = append(w.tasks, t)
	w.pruneTasks()
	w.mu.Unlock()
	return Result{Status: protocol.StatusStarted, Text: fmt.Sprintf("%s started; its state and output show in %s; end it with kill(task_id=%q)", t.ID(), w.id, t.ID())}
}

// pruneTasks forgets the oldest finished tasks beyond keptTasks.
func (w *bashWindow) pruneTasks() {
	for len(w.tasks) > keptTasks {
		i := 0
		for i < len(w.tasks) && w.tasks[i].State() == shell.TaskRunning {
			i++
		}
		if i == len(w.tasks) {
			return
		}
		w.tasks = append(w.tasks[:i], w.tasks[i+1:]...)
	}
}

func (w *bashWindow) kill(_ context.Context, args Args) Result {
	id := args.String("task_id")
	w.mu.Lock()
	var task *shell.Task
	var ids []string
	for _, t := range w.tasks {
		ids = append(ids, t.ID())
		if t.ID() == id {
			task = t
		}
	}
	w.mu.Unlock()
	if task == nil {
		if len(ids) == 0 {
			return Fail("no task %q in %s: it has no background tasks", id, w.id)
		}
		return Fail("no task %q in %s; its tasks: %s", id, w.id, strings.Join(ids, ", "))
	}
	if task.State() != shell.TaskRunning {
		return OK("%s had already ended: %s", id, taskStatus(task))
	}
	if err := task.Kill(); err != nil {
		return Fail("kill %s: %v", id, err)
	}
	return OK("killed %s", id)
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// beforeCommand lets an undo journal snapshot the workspace: what a
// command changes is known only afterwards.
func (w *bashWindow) beforeCommand() {
	if j, ok := w.env.Journal.(CommandJournal); ok {
		j.BeforeCommand(w.shell.Dir())
	}
}
