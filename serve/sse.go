package serve

import (
	"bytes"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aci-dev/aci/session"
)

// writeTimeout bounds one write to an event stream: a client that stops
// reading is dropped by the session, and its stream ends here once the
// connection's buffers are full for this long.
const writeTimeout = 30 * time.Second

// windowRefresh is how often a watched session's windows are looked at
// between turns.
const windowRefresh = time.Second

// events streams a session's events: first those after Last-Event-ID
// (from the session's bounded buffer), then each as it happens. The
// stream ends when the client goes, the server shuts down, or the
// session drops this subscriber for reading too slowly; the client then
// reconnects with Last-Event-ID and misses nothing still buffered.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	after := int64(math.MaxInt64) // only what happens from now on
	if v := strings.TrimSpace(r.Header.Get("Last-Event-ID")); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			s.fail(w, http.StatusBadRequest, "Last-Event-ID must be an event id (a whole number), got %s", quoteShort(v))
			return
		}
		after = n
	}
	_, ss, ok := s.viewed(w, r) // watching takes no lock (view.go)
	if !ok {
		return
	}
	s.streams.Add(1)
	defer s.streams.Add(-1)

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // proxies: pass each event on at once
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	var buf bytes.Buffer
	send := func() bool {
		rc.SetWriteDeadline(time.Now().Add(s.writeTimeout))
		_, err := w.Write(buf.Bytes())
		buf.Reset()
		return err == nil && rc.Flush() == nil
	}
	buf.WriteString(": aci events\n\n") // the client knows it is connected
	if ss == nil {
		// Not loaded here: its past comes from its transcript (the log of
		// its events), then the stream waits until this server runs it (a
		// message loads it); what it does then is new to the client.
		after = s.replayStored(&buf, r.PathValue("id"), after)
		if ss = s.awaitLive(r, r.PathValue("id"), &buf, send); ss == nil {
			return
		}
	}
	// From the first watcher on, the windows are looked at between turns
	// too, so a background task's progress reaches clients.
	ss.WatchWindows(windowRefresh)
	replay, live, stop := ss.Subscribe(after)
	defer stop()
	for _, ev := range replay {
		s.encodeEvent(&buf, ev)
	}
	if !send() {
		return
	}
	beat := time.NewTicker(s.cfg.Heartbeat)
	defer beat.Stop()
	for {
		select {
		case ev, open := <-live:
			if !open {
				return // dropped for reading too slowly: the client reconnects
			}
			s.encodeEvent(&buf, ev)
			// Whatever else is already waiting goes in the same write.
			for more := true; more && buf.Len() < 64<<10; {
				select {
				case ev, open := <-live:
					if !open {
						send()
						return
					}
					s.encodeEvent(&buf, ev)
				default:
					more = false
				}
			}
			if !send() {
				return
			}
		case <-beat.C:
			buf.WriteString(": ping\n\n")
			if !send() {
				return
			}
		case <-r.Context().Done():
			return
		case <-s.ctx.Done():
			return
		}
	}
}

// awaitLive waits, sending heartbeats, until this server runs session id;
// nil when the client or the server went first.
func (s *Server) awaitLive(r *http.Request, id string, buf *bytes.Buffer, send func() bool) *session.Session {
	if !send() {
		return nil
	}
	look := time.NewTicker(100 * time.Millisecond)
	defer look.Stop()
	beat := time.NewTicker(s.cfg.Heartbeat)
	defer beat.Stop()
	for {
		select {
		case <-look.C:
			if ss := s.lookup(id); ss != nil {
				return ss
			}
		case <-beat.C:
			buf.WriteString(": ping\n\n")
			if !send() {
				return nil
			}
		case <-r.Context().Done():
			return nil
		case <-s.ctx.Done():
			return nil
		}
	}
}

// encodeEvent writes one event: its id, its type and its object on one
// data line (JSON keeps newlines escaped). The object is the event's one
// encoding, the same bytes as stream-json's line; the session removed
// the secrets when it made the event.
func (s *Server) encodeEvent(buf *bytes.Buffer, ev session.Numbered) {
	data, err := session.Encode(ev.Event)
	if err != nil {
		s.log.Printf("event %d (%s) not sent: %v", ev.ID, ev.Type(), err)
		return
	}
	buf.WriteString("id: ")
	buf.WriteString(strconv.FormatInt(ev.ID, 10))
	buf.WriteString("\nevent: ")
	buf.WriteString(ev.Type())
	buf.WriteString("\ndata: ")
	buf.Write(data)
	buf.WriteString("\n\n")
}
