package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/aci-dev/aci/internal/dirs"
)

// Background sessions (docs/protocol.md §11): one `aci serve` process per
// workspace runs them, started detached by the first `aci --bg` and
// reused by the next. What the front ends need to find it lives in the
// state folder, never in the workspace:
//
//	STATE/bg/KEY/server.json      pid, address and token (0600)
//	STATE/bg/KEY/server.log       the server's output (0600)
//	STATE/bg/KEY/sessions/ID.json one record per background session
//
// KEY is a hash of the workspace's path.

// bgServerEnv tells a spawned `aci serve` it is a workspace's background
// server: where to write server.json. It is removed from the process's
// environment at once, so no command sees it.
const bgServerEnv = "ACI_BG_SERVER"

// bgIdle is how long a background server with nothing to do lives on;
// ACI_BG_IDLE_S shortens it (tests).
const bgIdle = 10 * time.Minute

// bgServer is server.json.
type bgServer struct {
	PID     int    `json:"pid"`
	Addr    string `json:"addr"` // HOST:PORT on loopback
	Token   string `json:"token"`
	Workdir string `json:"workdir"`
}

// bgRecord is one background session, as aci ps lists it.
type bgRecord struct {
	ID      string    `json:"id"`
	Task    string    `json:"task"`
	Started time.Time `json:"started"`
	// Workdir is where the session works: the workspace, or its worktree.
	Workdir  string `json:"workdir"`
	Worktree string `json:"worktree,omitempty"` // the worktree's name
}

// bgDir is the state folder of workspace workdir's background sessions.
func bgDir(workdir string) (string, error) {
	st, err := dirs.State()
	if err != nil {
		return "", fmt.Errorf("no state folder for background sessions: %w", err)
	}
	sum := sha256.Sum256([]byte(filepath.Clean(workdir)))
	return filepath.Join(st, "bg", hex.EncodeToString(sum[:8])), nil
}

// writeFileAtomic writes data to path (mode 0600) through a temporary file
// and a rename, so a reader never sees half of it.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// readBgServer reads server.json of dir; an error when there is none.
func readBgServer(dir string) (bgServer, error) {
	var s bgServer
	data, err := os.ReadFile(filepath.Join(dir, "server.json"))
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("%s: %w", filepath.Join(dir, "server.json"), err)
	}
	return s, nil
}

// alive reports whether the server answers with its token.
func (s bgServer) alive() bool {
	if s.Addr == "" || s.Token == "" {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	resp, err := s.do(ctx, "GET", "/api/openapi.json", nil)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// do sends one request to the server with its token.
func (s bgServer) do(ctx context.Context, method, path string, body any) (*http.Response, error) {
	var r io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		r = strings.NewReader(string(data))
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://"+s.Addr+path, r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+s.Token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return http.DefaultClient.Do(req)
}

// call sends one request and decodes a JSON answer into out (when not
// nil); a status of 400 or more is an error with the server's words.
func (s bgServer) call(ctx context.Context, method, path string, body, out any) error {
	resp, err := s.do(ctx, method, path, body)
	if err != nil {
		return fmt.Errorf("the background server at %s: %w", s.Addr, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode >= 400 {
		var e struct {
			Error string `json:"error"`
		}
		json.Unmarshal(data, &e)
		if e.Error == "" {
			e.Error = strings.TrimSpace(string(data))
		}
		return &httpError{status: resp.StatusCode, msg: e.Error}
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return fmt.Sprintf("%s (HTTP %d)", e.msg, e.status) }

// ensureBgServer returns workspace workdir's running background server,
// starting one when none answers: `aci serve` on a free loopback port, in
// its own session (setsid: a closed terminal's SIGHUP never reaches it),
// its output to server.log. serveArgs are the flags it is started with.
func ensureBgServer(workdir string, serveArgs []string) (bgServer, error) {
	dir, err := bgDir(workdir)
	if err != nil {
		return bgServer{}, err
	}
	if s, err := readBgServer(dir); err == nil && s.alive() {
		return s, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return bgServer{}, fmt.Errorf("make %s: %w", dir, err)
	}
	os.Remove(filepath.Join(dir, "server.json")) // a stale one names a dead server
	exe, err := os.Executable()
	if err != nil {
		return bgServer{}, fmt.Errorf("find aci's own program: %w", err)
	}
	logPath := filepath.Join(dir, "server.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return bgServer{}, fmt.Errorf("open %s: %w", logPath, err)
	}
	defer logf.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		return bgServer{}, err
	}
	defer null.Close()
	cmd := exec.Command(exe, append([]string{"serve", "--addr", "127.0.0.1:0"}, serveArgs...)...)
	cmd.Dir = workdir
	cmd.Env = append(os.Environ(), bgServerEnv+"="+filepath.Join(dir, "server.json"))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return bgServer{}, fmt.Errorf("start the background server: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(15 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-exited:
			return bgServer{}, fmt.Errorf("the background server ended at start (%v): see %s", err, logPath)
		case <-deadline:
			cmd.Process.Kill()
			return bgServer{}, fmt.Errorf("the background server did not start within 15 s: see %s", logPath)
		case <-tick.C:
			if s, err := readBgServer(dir); err == nil && s.PID == cmd.Process.Pid && s.alive() {
				return s, nil // it goes on alone; its exit is nobody's to wait for
			}
		}
	}
}

// bgServeFlags are the flags of an `aci --bg` line the server takes too:
// the model and the safety settings every session of it keeps.
func bgServeFlags(args []string) []string {
	takes := map[string]bool{"model": true, "effort": true, "max-steps": true, "sandbox": true, "trust": true}
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || !takes[name] {
			continue
		}
		out = append(out, a)
		if !hasValue && name != "trust" && i+1 < len(args) {
			out = append(out, args[i+1])
			i++
		}
	}
	return out
}

// bgRecords reads workspace workdir's records, oldest first.
func bgRecords(workdir string) ([]bgRecord, error) {
	dir, err := bgDir(workdir)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(filepath.Join(dir, "sessions"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []bgRecord
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, "sessions", e.Name()))
		if err != nil {
			continue
		}
		var r bgRecord
		if json.Unmarshal(data, &r) == nil && r.ID != "" {
			out = append(out, r)
		}
	}
	sortRecords(out)
	return out, nil
}

// findRecord is workspace workdir's background session id; a usage error
// (exit 2) naming aci ps when there is none.
func findRecord(workdir, id string) (bgRecord, error) {
	list, err := bgRecords(workdir)
	if err != nil {
		return bgRecord{}, err
	}
	for _, r := range list {
		if r.ID == id {
			return r, nil
		}
	}
	return bgRecord{}, usageErr("no background session %q in %s (aci ps lists them)", id, workdir)
}

func saveRecord(home string, r bgRecord) error {
	dir, err := bgDir(home)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, "sessions", r.ID+".json"), data)
}
