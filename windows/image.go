package windows

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aci-dev/aci/tools/imagefile"
)

// Picture is a window whose rendering carries a picture: the loop sends
// it as an image content part with the rendering that shows the view
// whole (once, and again when the view changes).
type Picture interface {
	// Picture is the picture of view v (a View of this window), nil when
	// it has none (the file is gone or no longer a picture).
	Picture(v View) *imagefile.Image
}

// ImageApp opens image windows: one picture file (PNG, JPEG, GIF, WebP)
// the model looks at. The text rendering says what it shows; the picture
// goes with it.
func ImageApp(env *Env) App {
	return pathApp(env, "image", "see a picture (PNG, JPEG, GIF, WebP) itself", "path", openImage)
}

type imageWindow struct {
	id    string
	title string // the path as given
	path  string // absolute

	mu    sync.Mutex
	key   imageKey // the file as last read
	cache View
}

// imageKey tells one version of the file from another without reading it.
type imageKey struct {
	size int64
	mod  time.Time
}

func openImage(ctx context.Context, env *Env, id, target string) (Window, string, error) {
	target = strings.TrimSpace(target)
	if target == "" {
		return nil, "", errors.New("open image needs a target: the picture's path")
	}
	path, err := env.openPath(ctx, id, target)
	if err != nil {
		return nil, "", err
	}
	// Bad input fails the open: nothing is sent.
	if _, err := imagefile.Load(path); err != nil {
		return nil, "", fmt.Errorf("image %s: %w", target, err)
	}
	return &imageWindow{id: id, title: target, path: path}, "", nil
}

func (w *imageWindow) ID() string    { return w.id }
func (w *imageWindow) App() string   { return "image" }
func (w *imageWindow) Title() string { return w.title }
func (w *imageWindow) Close()        {}

func (w *imageWindow) Actions() []Action {
	return []Action{closeAction("close the picture")}
}

// View says what the picture is (name, format, size, dimensions and a
// digest of its bytes, so a changed file is a changed view); the picture
// itself is its State. The file is read again only when its size or time
// changed.
func (w *imageWindow) View() View {
	w.mu.Lock()
	defer w.mu.Unlock()
	fi, err := os.Stat(w.path)
	if err != nil {
		return View{Content: fmt.Sprintf("image %s: cannot be read now: %v", w.title, unwrapPath(err))}
	}
	key := imageKey{fi.Size(), fi.ModTime()}
	if key == w.key && w.cache.Content != "" {
		return w.cache
	}
	im, err := imagefile.Load(w.path)
	if err != nil {
		return View{Content: fmt.Sprintf("image %s: %v", w.title, err)}
	}
	im.Name = w.title
	w.key = key
	w.cache = View{
		Content: fmt.Sprintf("image %s, version %s; the picture is attached", im.Describe(), im.Hash()),
		State:   &im,
	}
	return w.cache
}

// Picture is v's picture.
func (w *imageWindow) Picture(v View) *imagefile.Image {
	im, _ := v.State.(*imagefile.Image)
	return im
}

// unwrapPath is a file error without its path: the rendering names the
// file already.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
