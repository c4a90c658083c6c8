package main

import (
	"context"
	"fmt"
	"github.com/aci-dev/aci/tools/sandbox"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/aci-dev/aci/acp"
	"github.com/aci-dev/aci/ui"
)

// runACP is `aci acp`: an editor drives aci over the Agent Client
// Protocol on stdin and stdout (docs/protocol.md §8). Nothing else is written
// to stdout; what goes wrong is logged to $XDG_STATE_HOME/aci/acp.log.
func runACP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, err := loadConfig(append([]string{"acp"}, args...), stderr)
	if err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return ui.ExitUsage
	}
	if cfg.Help {
		fmt.Fprint(stdout, acpHelp)
		return ui.ExitOK
	}
	if cfg.Version {
		fmt.Fprintln(stdout, "aci", version)
		return ui.ExitOK
	}
	logger, closeLog, err := acp.OpenLog()
	if err != nil {
		fmt.Fprintln(stderr, "aci: no log:", err)
	} else {
		defer closeLog()
		logger.Printf("aci %s acp: model %s at %s", version, cfg.Model, cfg.BaseURL)
	}
	applySafety(cfg, stderr)
	if err := sandbox.CheckContainer(cfg.Sandbox, nil); err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return ui.ExitUsage
	}
	// Nothing the sessions started outlives aci: their sandboxes end, and
	// are waited for, before it exits.
	defer sandbox.Cleanup()
	if cfg.Telemetry, err = startTelemetry(stderr); err != nil {
		fmt.Fprintln(stderr, "aci:", err)
		return ui.ExitUsage
	}
	defer cfg.Telemetry.Shutdown()
	notify := func(s string) {
		if logger != nil {
			logger.Printf("model client: %s", s)
		}
	}
	f := newFactory(cfg, notify)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := acp.Run(ctx, stdin, stdout, acp.Config{Factory: f, Version: version, Log: logger, Mode: cfg.PermissionMode, Trust: cfg.Trust}); err != nil {
		fmt.Fprintln(stderr, "aci acp:", err)
		return ui.ExitFailed
	}
	return ui.ExitOK
}
