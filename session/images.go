package session

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/aci-dev/aci/tools/imagefile"
)

// Pictures with a question (docs/protocol.md §9): @path to a picture in the
// question, -i in pipe mode, a drop on the page, an editor's image block.
// Each is checked before anything is sent; a bad one fails the question
// as a usage error, and nothing is sent.

// ImageError is a picture that cannot go with a question: unreadable,
// too big, or not the format its name says.
type ImageError struct{ Err error }

func (e *ImageError) Error() string        { return e.Err.Error() }
func (e *ImageError) Unwrap() []error      { return []error{e.Err, ErrUsage} }
func (e *ImageError) Is(target error) bool { return target == ErrUsage }

// atImage finds @path mentions, as the REPL does for files.
var atImage = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|\s)@([^\s@]+)`) })

// MentionedImages are the paths of pictures a question names with @path
// (by their extension), as written.
func MentionedImages(question string) []string {
	var out []string
	for _, m := range atImage().FindAllStringSubmatch(question, -1) {
		rel := strings.TrimRight(m[1], ".,;:!?)")
		if imagefile.IsImagePath(rel) {
			out = append(out, rel)
		}
	}
	return out
}

// LoadImages reads the pictures at paths, relative to workdir.
func LoadImages(workdir string, paths []string) ([]imagefile.Image, error) {
	var out []imagefile.Image
	for _, p := range paths {
		path := p
		if strings.HasPrefix(path, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				path = filepath.Join(home, path[2:])
			}
		}
		if !filepath.IsAbs(path) {
			path = filepath.Join(workdir, path)
		}
		im, err := imagefile.Load(path)
		if err != nil {
			return nil, &ImageError{Err: fmt.Errorf("image %s: %w", p, err)}
		}
		im.Name = p
		out = append(out, im)
	}
	return out, nil
}

// AttachImages gives the next question pictures (-i, the page, an editor).
func (s *Session) AttachImages(imgs []imagefile.Image) {
	s.mu.Lock()
	s.images = append(s.images, imgs...)
	s.mu.Unlock()
}

// takeImages is what AttachImages gave, once.
func (s *Session) takeImages() []imagefile.Image {
	s.mu.Lock()
	defer s.mu.Unlock()
	imgs := s.images
	s.images = nil
	return imgs
}

// attachPrompt hands the agent the turn's pictures: those attached, then
// those the question names.
func (s *Session) attachPrompt(p Prompt) {
	if imgs := append(s.takeImages(), p.Images...); len(imgs) > 0 {
		s.agent.AttachImages(imgs)
	}
}
