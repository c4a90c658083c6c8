package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/tools/imagefile"
	"github.com/aci-dev/aci/windows"
)

// Limits on request bodies (docs/protocol.md §7: 413 past them). A question
// may carry a pasted file; a bigger one belongs in a file of the workspace
// the model can read, where it costs nothing until needed. The other
// bodies are a few fields.
const (
	maxMessageBody = 256 << 10
	maxSmallBody   = 64 << 10
)

// tooLargeError is a body over its limit: 413, not 400. why, when set,
// says what was too large instead of the generic words.
type tooLargeError struct {
	limit int64
	why   string
}

func (e *tooLargeError) Error() string {
	if e.why != "" {
		return e.why
	}
	return fmt.Sprintf("the body is over %s: put a long text in a file of the workspace and ask about the file instead", sizeName(e.limit))
}

// sizeName is "256 KiB" for a limit in bytes.
func sizeName(n int64) string {
	if n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// createRequest is POST /api/sessions.
type createRequest struct {
	Model string `json:"model"`
}

// messageRequest is POST /api/sessions/{id}/messages.
type messageRequest struct {
	Text   string      `json:"text"`
	Images []imageBody `json:"images,omitempty"` // images.go
	// pictures are Images decoded and checked.
	pictures []imagefile.Image
}

// decisionRequest is POST /api/sessions/{id}/approvals/{request_id}.
type decisionRequest struct {
	Decision string `json:"decision"`
	Message  string `json:"message"`
}

// forkRequest is POST /api/sessions/{id}/fork.
type forkRequest struct {
	Turn *int `json:"turn"`
}

// decodeCreate reads a create body; an empty body asks for the
// configured model.
func decodeCreate(body []byte) (createRequest, error) {
	var req createRequest
	if len(bytes.TrimSpace(body)) == 0 {
		return req, nil
	}
	if err := decodeStrict(body, &req); err != nil {
		return req, err
	}
	req.Model = strings.TrimSpace(req.Model)
	if strings.ContainsAny(req.Model, "\x00\r\n") {
		return req, errors.New(`"model" must be one line`)
	}
	return req, nil
}

// decodeMessage reads a question; it must say something.
func decodeMessage(body []byte) (messageRequest, error) {
	var req messageRequest
	if err := decodeStrict(body, &req); err != nil {
		return req, err
	}
	if strings.TrimSpace(req.Text) == "" {
		return req, errors.New(`"text" is missing or empty: send {"text": "your question"}`)
	}
	// Besides its pictures, a message keeps the limit it had without them.
	rest := len(body)
	for _, im := range req.Images {
		rest -= len(im.Data)
	}
	if rest > maxMessageBody {
		return req, &tooLargeError{limit: maxMessageBody}
	}
	var err error
	req.pictures, err = decodeImages(req.Images)
	return req, err
}

// decodeDecision reads an answer to an approval question and turns it
// into the decision the windows understand: "always" allows and
// remembers, as in the REPL.
func decodeDecision(body []byte) (windows.Decision, error) {
	var req decisionRequest
	if err := decodeStrict(body, &req); err != nil {
		return windows.Decision{}, err
	}
	d := windows.Decision{Message: strings.TrimSpace(req.Message)}
	switch req.Decision {
	case "allow":
		d.Allow = true
	case "always":
		d.Allow, d.Always = true, true
	case "always_project":
		d.Allow, d.Always, d.Project = true, true, true
	case "deny":
	default:
		return windows.Decision{}, fmt.Errorf(`"decision" must be "allow", "deny", "always" or "always_project", got %s`, quoteShort(req.Decision))
	}
	return d, nil
}

// decodeFork reads the number of turns a branch keeps.
func decodeFork(body []byte) (int, error) {
	var req forkRequest
	if err := decodeStrict(body, &req); err != nil {
		return 0, err
	}
	if req.Turn == nil {
		return 0, errors.New(`"turn" is missing: send {"turn": N}, the number of turns the branch keeps`)
	}
	if *req.Turn < 1 {
		return 0, fmt.Errorf(`"turn" must be 1 or more (turns count from 1), got %d`, *req.Turn)
	}
	return *req.Turn, nil
}

// decodeStrict decodes one JSON object into v: no unknown fields, nothing
// after it. Its errors are one line, for the {"error"} body.
func decodeStrict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("the body is empty: send a JSON object")
		}
		return fmt.Errorf("the body is not the JSON object expected: %s", oneLine(err.Error()))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("the body holds more than one JSON value")
	}
	return nil
}

// decodeBody reads r's body (at most limit bytes) with decode; a body that
// cannot be read or decoded is answered 400 and ok is false.
func decodeBody[T any](s *Server, w http.ResponseWriter, r *http.Request, limit int64, decode func([]byte) (T, error)) (v T, ok bool) {
	var body []byte
	var err error
	if r.ContentLength > limit {
		err = &tooLargeError{limit: limit} // said before a byte of it is read
	} else {
		body, err = readBody(r.Body, limit)
	}
	if err == nil {
		v, err = decode(body)
	}
	var big *tooLargeError
	switch {
	case errors.As(err, &big):
		// The rest of the body is not read: the connection goes with it.
		w.Header().Set("Connection", "close")
		s.fail(w, http.StatusRequestEntityTooLarge, "%v", err)
		return v, false
	case err != nil:
		s.fail(w, http.StatusBadRequest, "%v", err)
		return v, false
	}
	return v, true
}

// sessionBody is a session's route's body decoded and its session found;
// not ok when either failed (the answer is written).
func sessionBody[T any](s *Server, w http.ResponseWriter, r *http.Request, limit int64, decode func([]byte) (T, error)) (T, *session.Session, bool) {
	v, ok := decodeBody(s, w, r, limit, decode)
	if !ok {
		return v, nil, false
	}
	ss, ok := s.session(w, r)
	return v, ss, ok
}

// readBody reads at most limit bytes of a request body.
func readBody(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read the body: %s", oneLine(err.Error()))
	}
	if int64(len(data)) > limit {
		return nil, &tooLargeError{limit: limit}
	}
	return data, nil
}

// oneLine keeps an error message to one short line.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}

// quoteShort quotes a value from the client for an error message,
// shortened so a huge one does not come back whole.
func quoteShort(s string) string {
	if r := []rune(s); len(r) > 40 {
		s = string(r[:39]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
