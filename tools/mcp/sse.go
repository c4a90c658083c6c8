package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"time"
)

// errEventTooLarge stops a stream whose event exceeds maxMessage.
var errEventTooLarge = errors.New("event too large")

// sseEvent is one server-sent event
// (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation).
type sseEvent struct {
	name  string
	id    string
	data  []byte
	retry time.Duration
}

// message reports whether the event carries a JSON-RPC message: MCP sends
// them as unnamed (or "message") events; an event with no data only
// primes the Last-Event-ID.
func (e sseEvent) message() bool { return len(e.data) > 0 && (e.name == "" || e.name == "message") }

// readSSE calls each for every event until the stream ends (nil), each
// returns false (nil), an event is larger than maxMessage or reading fails.
func readSSE(r io.Reader, each func(sseEvent) bool) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var ev sseEvent
	hasData := false
	size := 0
	for {
		line, err := readBounded(br, maxMessage-size)
		if err != nil && err != io.EOF {
			return err
		}
		size += len(line)
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if hasData || ev.id != "" || ev.retry > 0 {
				if !each(ev) {
					return nil
				}
			}
			ev, hasData, size = sseEvent{}, false, 0
		} else if line[0] != ':' { // not a comment
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "event":
				ev.name = string(value)
			case "id":
				ev.id = string(value)
			case "retry":
				if ms, perr := strconv.Atoi(string(value)); perr == nil && ms > 0 {
					ev.retry = time.Duration(ms) * time.Millisecond
				}
			case "data":
				if hasData {
					ev.data = append(ev.data, '\n')
				}
				ev.data = append(ev.data, value...)
				hasData = true
			}
		}
		if err == io.EOF {
			return nil // an event the stream did not close with a blank line is dropped
		}
	}
}

// readBounded reads one line of at most limit bytes, copied.
func readBounded(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		part, err := br.ReadSlice('\n')
		if len(line)+len(part) > limit {
			return nil, errEventTooLarge
		}
		line = append(line, part...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}
