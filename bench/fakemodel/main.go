// Command fakemodel serves internal/fakeai outside a test, for benchmarks
// of the real binary: it answers each chat completion with the next
// scripted reply of a file (replies separated by a line "---"), then with
// "done", or with -loop from the first reply again; -delay holds each
// reply back (to look at aci while it waits). It prints its base URL on the
// first line of stdout. -save-first keeps the first request's body, for
// bench/first_request.sh.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/aci-dev/aci/internal/fakeai"
)

// logTB reports the fake's complaints on stderr instead of failing a test.
type logTB struct{}

func (logTB) Helper()                           {}
func (logTB) Errorf(format string, args ...any) { log.Printf(format, args...) }
func (logTB) Fatalf(format string, args ...any) { log.Fatalf(format, args...) }
func (logTB) Cleanup(func())                    {}

func main() {
	file := flag.String("reply-file", "", "scripted replies")
	loop := flag.Bool("loop", false, "once the replies ran out, start again from the first")
	delay := flag.Duration("delay", 0, "wait this long before each reply")
	logRequests := flag.Bool("log-requests", false, "say on stderr when each request comes")
	saveFirst := flag.String("save-first", "", "write the body of the first request to this file")
	flag.Parse()
	data, err := os.ReadFile(*file)
	if err != nil {
		log.Fatal(err)
	}
	script := strings.Split(string(data), "\n---\n")
	replies := script
	var mu sync.Mutex
	srv := fakeai.New(logTB{})
	srv.Handle(func(req fakeai.Request) fakeai.Reply {
		mu.Lock()
		defer mu.Unlock()
		if *logRequests {
			log.Printf("request %d", req.N) // when each came, for bench/acp_stalled.sh
		}
		if *saveFirst != "" && req.N == 1 {
			if err := os.WriteFile(*saveFirst, req.Body, 0o644); err != nil {
				log.Printf("save first request: %v", err)
			}
		}
		content := "done"
		if len(replies) == 0 && *loop {
			replies = script
		}
		if len(replies) > 0 {
			content, replies = replies[0], replies[1:]
		}
		return fakeai.Reply{Content: content, Delay: *delay}
	})
	fmt.Println(srv.URL)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	srv.Close()
}
