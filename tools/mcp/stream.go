package mcp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// streamTransport carries newline-delimited JSON messages over a byte
// stream: a server's stdin and stdout, or a connection a test dialled.
type streamTransport struct {
	c        *conn
	r        io.Reader
	w        io.Writer
	wmu      sync.Mutex
	stop     func()        // ends the stream (and the process) so the reader returns
	started  atomic.Bool   // the reader runs
	readDone chan struct{} // closed when the reader has returned
}

func newStream(c *conn, r io.Reader, w io.Writer) *streamTransport {
	return &streamTransport{c: c, r: r, w: w, readDone: make(chan struct{})}
}

func (t *streamTransport) start() {
	t.started.Store(true)
	go func() {
		defer close(t.readDone)
		t.c.end(t.read())
	}()
}

// read delivers every line until the stream ends, and says how it ended.
func (t *streamTransport) read() error {
	br := bufio.NewReaderSize(t.r, 64<<10)
	for {
		line, err := readLine(br, t.c)
		if line != nil {
			t.c.deliver(line)
		}
		if err == io.EOF {
			return errors.New("the server closed its output")
		}
		if err != nil {
			return fmt.Errorf("reading the server's output: %w", err)
		}
	}
}

// readLine reads one line of at most maxMessage bytes; a longer one is
// skipped, its start and end kept to tell which call it answered.
func readLine(br *bufio.Reader, c *conn) ([]byte, error) {
	var line []byte
	var head, tail []byte
	size := 0
	for {
		part, err := br.ReadSlice('\n')
		size += len(part)
		switch {
		case head != nil: // skipping
			tail = append(tail, part...)
			if len(tail) > 4096 {
				tail = append(tail[:0], tail[len(tail)-1024:]...)
			}
		case size > maxMessage:
			head = append(line, part...)
			if len(head) > 64<<10 {
				head = head[:64<<10]
			}
			line = nil
			tail = append([]byte(nil), part[max(0, len(part)-1024):]...)
		default:
			line = append(line, part...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if head != nil {
			c.tooLarge(head, tail)
			line = nil
		}
		if err != nil && len(line) == 0 {
			return nil, err
		}
		return line, err
	}
}

func (t *streamTransport) send(_ context.Context, data []byte, _ int64) error {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	msg := make([]byte, 0, len(data)+1)
	msg = append(append(msg, data...), '\n')
	if _, err := t.w.Write(msg); err != nil {
		return fmt.Errorf("writing to the server: %w", err)
	}
	return nil
}

func (t *streamTransport) agreed(string) {}
func (t *streamTransport) ready()        {}

func (t *streamTransport) close() {
	t.stop()
	if t.started.Load() {
		<-t.readDone
	}
}

// dialStream is a connection over a stream the caller opened (tests).
func dialStream(c *conn, rwc io.ReadWriteCloser) *streamTransport {
	t := newStream(c, rwc, rwc)
	t.stop = func() { rwc.Close() }
	return t
}

// startStdio starts a server's command with its stdin and stdout as the
// connection. Closing follows the MCP spec: close its input, give it
// terminateWait to exit, then SIGTERM and at last SIGKILL, to its whole
// process group (a server's children may outlive it).
func startStdio(c *conn, cmd *exec.Cmd) (*streamTransport, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	// Files, not StdinPipe/StdoutPipe: Wait then closes nothing of ours,
	// so all the server wrote is read even after it exited.
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t := newStream(c, outR, inW)
	var once sync.Once
	t.stop = func() {
		once.Do(func() {
			inW.Close()
			if !waitExit(exited, terminateWait) {
				signalGroup(cmd, syscall.SIGTERM)
				if !waitExit(exited, terminateWait) {
					signalGroup(cmd, syscall.SIGKILL)
					<-exited
				}
			}
			signalGroup(cmd, syscall.SIGKILL) // what is left of its group
			outR.Close()
		})
	}
	// A server that exits while a child keeps its output open would
	// never show an end of output: its exit ends the connection.
	go func() {
		select {
		case <-exited:
			select {
			case <-t.readDone:
			case <-time.After(time.Second):
				c.end(errors.New("the server exited"))
			}
		case <-c.closed:
		}
	}()
	return t, nil
}

func waitExit(exited chan struct{}, d time.Duration) bool {
	select {
	case <-exited:
		return true
	case <-time.After(d):
		return false
	}
}

// signalGroup signals the process group the server leads.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, sig)
	}
}
