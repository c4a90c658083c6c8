package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/tools/sandbox"
)

// The status line (docs/protocol.md §9 "Status line"), in Claude Code's shape:
// the person's statusLine command gets the session as JSON on stdin and
// its first line shows by the prompt. It runs in its own goroutine
// with a deadline; the prompt waits for it at most statusWait, so a slow
// command never stalls it. A command that is too slow, fails, or prints
// escape codes or unreadable bytes is dropped for the rest of the session,
// with one notice. It comes from the person's settings only.

const (
	statusTimeout = 2 * time.Second        // a run longer than this is killed and the line dropped
	statusWait    = 300 * time.Millisecond // how long the prompt waits for a fresh line
)

type statusLine struct {
	command string
	padding int

	mu      sync.Mutex
	text    string        // the last good first line
	notice  string        // why it was dropped, until told
	dropped bool          // no more runs
	running chan struct{} // closed when the run in flight ends; nil when none
}

// statusInput is the JSON the command reads: Claude Code's field names
// where it has them, aci's additions (permission_mode, git, cache) beside.
type statusInput struct {
	HookEventName  string `json:"hook_event_name"`
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Model          struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"model"`
	Workspace struct {
		CurrentDir string `json:"current_dir"`
		ProjectDir string `json:"project_dir"`
	} `json:"workspace"`
	Version        string `json:"version"`
	PermissionMode string `json:"permission_mode"`
	Cost           struct {
		TotalCostUSD *float64 `json:"total_cost_usd"`
		SavedUSD     float64  `json:"cache_saved_usd"`
	} `json:"cost"`
	ContextWindow struct {
		TotalInputTokens  int64    `json:"total_input_tokens"`
		TotalOutputTokens int64    `json:"total_output_tokens"`
		ContextWindowSize int64    `json:"context_window_size,omitempty"`
		CurrentInput      int64    `json:"current_input_tokens"`
		CachedTokens      int64    `json:"cached_tokens"`
		UsedPercentage    *float64 `json:"used_percentage,omitempty"`
	} `json:"context_window"`
	Git struct {
		Branch string `json:"branch,omitempty"`
	} `json:"git"`
}

// statusJSON is the session as the command reads it.
func (r *REPL) statusJSON() []byte {
	var in statusInput
	in.HookEventName = "Status"
	in.SessionID = r.sess.ID()
	if dir, err := session.SessionsDir(); err == nil && in.SessionID != "" {
		if p, err := session.SessionPath(dir, r.cfg.Workdir, in.SessionID, false); err == nil {
			in.TranscriptPath = p
		}
	}
	in.Cwd, in.Workspace.CurrentDir, in.Workspace.ProjectDir = r.cfg.Workdir, r.cfg.Workdir, r.cfg.Workdir
	in.Model.ID = r.sess.Model()
	in.Model.DisplayName = in.Model.ID
	in.Version = r.cfg.Version
	in.PermissionMode = string(r.sess.Mode())
	st, w := r.sess.Stats()
	if st.Cost.Known() {
		usd := st.Cost.USD
		in.Cost.TotalCostUSD = &usd
	}
	in.Cost.SavedUSD = st.Cost.SavedUSD
	cw := &in.ContextWindow
	cw.TotalInputTokens, cw.TotalOutputTokens, cw.CurrentInput, cw.CachedTokens = st.PromptTokens, st.CompletionTokens, st.LastPrompt, st.CachedTokens
	if w.Tokens > 0 {
		cw.ContextWindowSize = w.Tokens
		pct := float64(st.LastPrompt) * 100 / float64(w.Tokens)
		cw.UsedPercentage = &pct
	}
	in.Git.Branch = gitBranch(r.cfg.Workdir)
	data, _ := json.Marshal(in)
	return data
}

// gitBranch reads the branch from .git/HEAD (no program is run for it);
// "" outside a repository or on a detached HEAD.
func gitBranch(dir string) string {
	for {
		gitDir := filepath.Join(dir, ".git")
		if b, err := os.ReadFile(gitDir); err == nil { // a worktree's .git file
			if p, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); ok {
				if !filepath.IsAbs(p) {
					p = filepath.Join(dir, p)
				}
				gitDir = p
			}
		}
		if head, err := os.ReadFile(filepath.Join(gitDir, "HEAD")); err == nil {
			ref, _ := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: refs/heads/")
			if ref == strings.TrimSpace(string(head)) {
				return ""
			}
			return ref
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// refresh starts a run unless one is in flight or the line was dropped,
// and returns the channel closed when the run in flight ends.
func (r *REPL) refreshStatus() chan struct{} {
	sl := r.status
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if sl.dropped {
		return nil
	}
	if sl.running != nil {
		return sl.running
	}
	done := make(chan struct{})
	sl.running = done
	input := r.statusJSON()
	go func() {
		defer close(done)
		text, err := runStatus(sl.command, r.cfg.Workdir, input)
		sl.mu.Lock()
		defer sl.mu.Unlock()
		sl.running = nil
		if err != nil {
			sl.dropped, sl.text, sl.notice = true, "", "statusLine dropped for this session: "+err.Error()
			return
		}
		sl.text = text
	}()
	return done
}

// runStatus runs the command through sh, as Claude Code does, and returns
// its first line.
func runStatus(command, dir string, input []byte) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), statusTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = sandbox.Environ(os.Environ()) // the person's program, without the keys aci holds
	cmd.Stdin = bytes.NewReader(input)
	var out bytes.Buffer
	cmd.Stdout = &limitedWriter{w: &out, n: 64 << 10}
	cmd.WaitDelay = 200 * time.Millisecond // a child left holding the pipe does not hold us
	err := cmd.Run()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "", fmt.Errorf("the command took longer than %v", statusTimeout)
	case err != nil:
		return "", fmt.Errorf("the command failed: %v", err)
	}
	line, _, _ := strings.Cut(out.String(), "\n")
	line = strings.TrimRight(line, "\r")
	if !utf8.ValidString(line) || strings.ContainsFunc(line, func(c rune) bool { return c != '\t' && (c < 0x20 || c == 0x7f || c >= 0x80 && c < 0xa0) }) {
		return "", errors.New("the command printed escape codes or unreadable bytes")
	}
	return line, nil
}

type limitedWriter struct {
	w *bytes.Buffer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// drawStatus runs the command (waiting for it at most statusWait) and
// draws its line on the row just above the prompt. (Under the prompt is
// where Claude Code draws it; readline clears everything below its
// prompt at each key, so the row above is the one that stays.)
func (r *REPL) drawStatus() {
	if r.status == nil {
		return
	}
	if done := r.refreshStatus(); done != nil {
		select {
		case <-done:
		case <-time.After(statusWait):
		}
	}
	sl := r.status
	sl.mu.Lock()
	text, notice := sl.text, sl.notice
	sl.notice = ""
	sl.mu.Unlock()
	if notice != "" {
		r.out.println(r.out.yellow.Sprint("⚠ " + sanitize(notice)))
	}
	if text == "" {
		return
	}
	r.out.println(r.out.dim.Sprint(clip(strings.Repeat(" ", sl.padding)+text, screenWidth()-1)))
}
