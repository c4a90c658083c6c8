// Package sse reads a stream of server-sent events, as aci serve's
// /api/sessions/{id}/events sends them (docs/protocol.md).
package sse

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// Event is one event of a stream.
type Event struct {
	ID   int64
	Type string
	Data string
}

// Read hands each event of the stream r to each, in order, until the
// stream ends; its error is the reader's. Data lines of one event are
// joined; comments and events without a type are passed over.
func Read(r io.Reader, each func(Event)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var ev Event
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.Type != "" {
				each(ev)
			}
			ev = Event{}
		case strings.HasPrefix(line, "id: "):
			ev.ID, _ = strconv.ParseInt(line[4:], 10, 64)
		case strings.HasPrefix(line, "event: "):
			ev.Type = line[7:]
		case strings.HasPrefix(line, "data: "):
			ev.Data += line[6:]
		}
	}
	return sc.Err()
}
