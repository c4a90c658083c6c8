package main

import (
	"flag"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// serveFlag is --serve, --serve=HOST:PORT or --serve HOST:PORT (the next
// word, when it is an address): the REPL with the server on its session.
type serveFlag struct {
	c    *config
	bare bool
}

func (f *serveFlag) String() string   { return "" }
func (f *serveFlag) IsBoolFlag() bool { return true }

func (f *serveFlag) Set(v string) error {
	switch v {
	case "true":
		f.c.ServeREPL, f.bare = true, true
	case "false":
		f.c.ServeREPL = false
	default:
		f.c.ServeREPL, f.c.ServeREPLAddr = true, v
	}
	return nil
}

// takesNext takes the word after a bare --serve when it is an address.
func (f *serveFlag) takesNext(fs *flag.FlagSet) bool {
	if !f.bare || fs.NArg() == 0 {
		return false
	}
	if _, _, err := net.SplitHostPort(fs.Arg(0)); err != nil {
		return false
	}
	f.c.ServeREPLAddr, f.bare = fs.Arg(0), false
	return true
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
