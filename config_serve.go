package main

import (
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// serveFlag is --serve, --serve=HOST:PORT or --serve HOST:PORT (the next
// word, when it is an address): the REPL with the server on its session.
func serveFlag(c *config) *valueFlag {
	return &valueFlag{on: &c.ServeREPL, value: &c.ServeREPLAddr,
		check: func(string) error { return nil },
		next: func(w string) bool {
			_, _, err := net.SplitHostPort(w)
			return err == nil
		},
	}
}

// checkServeREPL checks --serve: for the REPL only, at a valid address.
func (c *config) checkServeREPL() error {
	if !c.ServeREPL {
		return nil
	}
	if c.Serve || c.PromptSet {
		return usageErr("--serve is for the REPL (aci serve runs the server alone; aci -p has no session to watch)")
	}
	if c.ServeREPLAddr == "" {
		c.ServeREPLAddr = defaultServeAddr
	}
	if err := checkAddr("--serve", c.ServeREPLAddr); err != nil {
		return err
	}
	c.ServeToken = strings.TrimSpace(os.Getenv("ACI_SERVE_TOKEN"))
	if c.ServeToken != "" && len(c.ServeToken) < 16 {
		return usageErr("ACI_SERVE_TOKEN must be at least 16 characters: anyone who guesses it drives the agent")
	}
	if c.ApprovalTimeout == 0 {
		c.ApprovalTimeout = 600 * time.Second
	}
	return nil
}

const defaultServeAddr = "127.0.0.1:7433"

// checkAddr checks a HOST:PORT a server listens on.
func checkAddr(flagName, addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return usageErr("%s must be HOST:PORT, got %q", flagName, addr)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return usageErr("%s: the port must be 0 to 65535, got %q", flagName, port)
	}
	if host == "" {
		return usageErr("%s needs a host: 127.0.0.1 for this machine only, 0.0.0.0 for every interface", flagName)
	}
	return nil
}
