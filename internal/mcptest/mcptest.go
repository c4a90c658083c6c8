// Package mcptest gives tests a real MCP server written with the official Go
// SDK, for aci's own client to talk to: in-process (over a pipe, as over
// stdio) or as a child process (the test binary re-executed, over stdio),
// and a look at /proc for processes left behind. The SDK is a dependency
// of the tests only: aci's binary does not link it.
package mcptest

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aci-dev/aci/internal/testutil"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// EnvServe, set to 1 in a test binary's environment, makes Main serve the
// test server on stdio instead of running the tests.
const EnvServe = "ACI_MCPTEST_SERVE"

// Main is called from a test package's TestMain: in a re-executed binary it
// serves and exits; otherwise it returns and the tests run.
func Main() {
	if os.Getenv(EnvServe) != "1" {
		return
	}
	err := NewServer().Run(context.Background(), &sdk.StdioTransport{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcptest server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// StdioCommand is the command and environment that start the test server
// over stdio: the running test binary, re-executed.
func StdioCommand() (string, []string, map[string]string) {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return exe, []string{"-test.run=^$"}, map[string]string{EnvServe: "1"}
}

type echoIn struct {
	Message string `json:"message" jsonschema:"the text to send back"`
}

type addIn struct {
	A int     `json:"a"`
	B float64 `json:"b,omitempty"`
}

type empty struct{}

type bigIn struct {
	Size int `json:"size"`
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// NewServer is the test server: echo (read-only), add, fail (a tool
// error), slow (answers after a minute, or never when canceled), crash
// (exits the process mid-call), spawn (leaves a child process running),
// image, grow (adds a tool: the list changes), one text resource and a
// template; and, to try a client's protocol, ping (pings the client),
// roots (asks the client for its roots), big (a result of size bytes),
// noise (writes a line that is no JSON-RPC to stdout first) and canceled
// (how many slow calls were canceled). Lists come in pages of 3.
func NewServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "mcptest", Version: "1"}, &sdk.ServerOptions{Instructions: "Echo before you add.", PageSize: 3})
	var canceled atomic.Int32
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echoes the message back.\nSecond line.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return text("echo: " + in.Message), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "Adds a and b."},
		func(_ context.Context, _ *sdk.CallToolRequest, in addIn) (*sdk.CallToolResult, any, error) {
			return text(strconv.FormatFloat(float64(in.A)+in.B, 'f', -1, 64)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Always fails."},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("the disk is full")
		})
	sdk.AddTool(s, &sdk.Tool{Name: "slow", Description: "Takes a minute.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, _ *sdk.CallToolRequest, _ empty) (*sdk.CallToolResult, any, error) {
			select {
			case <-time.After(time.Minute):
			case <-ctx.Done():
				canceled.Add(1)
			}
			return text("done"), nil, nil
		})
	addProtocolTools(s, &canceled)
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "Exits the server.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "mcptest: crashing on purpose")
			os.Exit(3)
			return nil, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "spawn", Description: "Starts a child that sleeps.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			cmd := exec.Command("sleep", "300")
			if err := cmd.Start(); err != nil {
				return nil, nil, err
			}
			return text(strconv.Itoa(cmd.Process.Pid)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "image", Description: "A picture.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a dot:"}, &sdk.ImageContent{MIMEType: "image/png", Data: []byte("12345")}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "grow", Description: "Adds a tool named grown."},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			sdk.AddTool(s, &sdk.Tool{Name: "grown", Description: "New."},
				func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
					return text("hi"), nil, nil
				})
			return text("grew"), nil, nil
		})
	s.AddTool(&sdk.Tool{Name: "bad name</window>", Description: "A name that could break the rendering.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("no"), nil })
	s.AddResource(&sdk.Resource{URI: "test://readme", Name: "readme", MIMEType: "text/plain", Description: "What this is."},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "hello from the resource"}}}, nil
		})
	s.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: "test://notes/{id}", Name: "note", Description: "A note by id."},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, Text: "note " + strings.TrimPrefix(req.Params.URI, "test://notes/")}}}, nil
		})
	return s
}

// addProtocolTools adds the tools that try a client's side of the protocol.
func addProtocolTools(s *sdk.Server, canceled *atomic.Int32) {
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true}
	sdk.AddTool(s, &sdk.Tool{Name: "ping", Description: "Pings the client.", Annotations: ro},
		func(ctx context.Context, req *sdk.CallToolRequest, _ empty) (*sdk.CallToolResult, any, error) {
			if err := req.Session.Ping(ctx, nil); err != nil {
				return nil, nil, fmt.Errorf("the client did not answer ping: %w", err)
			}
			return text("pong"), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "roots", Description: "Asks the client for its roots.", Annotations: ro},
		func(ctx context.Context, req *sdk.CallToolRequest, _ empty) (*sdk.CallToolResult, any, error) {
			_, err := req.Session.ListRoots(ctx, nil)
			return text(fmt.Sprintf("roots/list: %v", err)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "big", Description: "A result of size bytes.", Annotations: ro},
		func(_ context.Context, _ *sdk.CallToolRequest, in bigIn) (*sdk.CallToolResult, any, error) {
			return text(strings.Repeat("x", in.Size)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "noise", Description: "Writes a line that is not JSON-RPC to stdout.", Annotations: ro},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			if os.Getenv(EnvServe) == "1" { // stdout is the connection
				fmt.Println("mcptest: this line is not JSON-RPC")
			}
			return text("noisy"), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "canceled", Description: "How many slow calls were canceled.", Annotations: ro},
		func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
			return text(strconv.Itoa(int(canceled.Load()))), nil, nil
		})
}

// InMemory connects a fresh test server in-process and returns the
// client's side of the connection, newline-delimited JSON-RPC as over
// stdio; for a pool's Dial.
func InMemory() (io.ReadWriteCloser, error) {
	client, server := net.Pipe()
	if _, err := NewServer().Connect(context.Background(), &sdk.IOTransport{Reader: server, Writer: server}, nil); err != nil {
		client.Close()
		return nil, err
	}
	return client, nil
}

// Alive reports whether process pid runs.
func Alive(pid int) bool { return testutil.Alive(pid) }

// Group lists the live processes of process group pgid.
func Group(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f, ok := testutil.ProcStat(pid) // state, ppid, pgrp, ...
		if ok && len(f) > 2 && f[2] == strconv.Itoa(pgid) && testutil.Alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// WaitGone waits up to d for every process of pgid to end; it returns
// those still there.
func WaitGone(pgid int, d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		left := Group(pgid)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}
