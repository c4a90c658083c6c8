package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/aci-dev/aci/serve"
	"github.com/aci-dev/aci/serve/web"
	"github.com/aci-dev/aci/ui"
	"github.com/aci-dev/aci/windows"
)

// runServe is `aci serve`: the workspace's sessions over HTTP until
// SIGINT or SIGTERM, then a clean stop (turns cancelled, commands and MCP
// servers ended, transcripts kept) and exit 0.
func runServe(cfg config, workdir string, stdout, stderr io.Writer) int {
	say := func(line string) { fmt.Fprintln(stderr, "aci:", line) }
	bgState := os.Getenv(bgServerEnv) // a workspace's background server (bg.go)
	os.Unsetenv(bgServerEnv)
	if cfg.Found != "" {
		say(cfg.Found)
	}
	token := cfg.ServeToken
	if token == "" {
		token = serve.NewToken()
	}
	cfg.Secrets.Add(token) // a command that somehow printed it shows [REDACTED]
	// Questions go to the clients; with --yes the sessions start in mode
	// yes and answer them themselves (a notice event each), until a client
	// switches a session to another mode.
	var approver windows.Approver
	if cfg.Yes {
		say("--yes: every dangerous action is approved without asking a client (sessions start in mode yes)")
	}
	srv, err := serve.New(serve.Config{
		Approver: approver,
		Mode:     cfg.PermissionMode,
		Trust:    cfg.Trust,
		Factory:  newFactory(cfg, say),
		Workdir:  workdir,
		Token:    token,
		Redact:   cfg.Secrets.Redact,
		Log:      stderr,
		Page:     web.Handler(),
		Events:   bgNotify(bgState),
	})
	if err != nil {
		say(err.Error())
		return ui.ExitFailed
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if bgState != "" {
		signal.Ignore(syscall.SIGHUP) // setsid already; a terminal's hang-up is never this server's end
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		go stopWhenIdle(ctx, srv, bgIdleFor(), cancel, say)
		defer removeBgState(bgState)
	}
	err = srv.ListenAndServe(ctx, cfg.Addr, func(addr net.Addr) {
		if bgState != "" {
			data, _ := json.Marshal(bgServer{PID: os.Getpid(), Addr: addr.String(), Token: srv.Token(), Workdir: workdir})
			if err := writeFileAtomic(bgState, data); err != nil {
				say("cannot write " + bgState + ": " + err.Error())
				stop()
			}
		}
		if bgState != "" {
			// The log is a file: the token stays in server.json alone.
			fmt.Fprintf(stdout, "aci serve: background server on http://%s (its token is in %s)\n", addr, bgState)
			return
		}
		fmt.Fprintln(stdout, "aci serve:", srv.URL(addr))
		if !serve.IsLoopback(cfg.Addr) {
			host, _, _ := net.SplitHostPort(cfg.Addr)
			_, port, _ := net.SplitHostPort(addr.String())
			say(fmt.Sprintf("warning: listening on %s, reachable from other machines: anyone with the token can run commands here as you", net.JoinHostPort(host, port)))
		}
	})
	if err != nil {
		say(err.Error())
		return ui.ExitFailed
	}
	say("stopped")
	return ui.ExitOK
}
