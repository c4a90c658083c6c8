// Package imagefile reads a picture to send to the model: PNG, JPEG, GIF
// or WebP, checked against its name's format by its first bytes, bounded
// in size, its dimensions read from its header. It knows nothing of
// windows or of the model.
package imagefile

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // DecodeConfig for GIF
	_ "image/jpeg"
	_ "image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// MaxBytes is the largest picture sent: providers refuse larger ones
// (OpenAI takes 20 MB per image), and one costs a request that much.
const MaxBytes = 20 << 20

// Image is one picture as the model gets it. Data is encoded as base64 in
// JSON (transcripts, the server's API).
type Image struct {
	Name   string `json:"name,omitempty"` // the file's name or a label, for notes
	MIME   string `json:"mime"`
	Data   []byte `json:"data,omitempty"`
	Width  int    `json:"width,omitempty"`
	Height int    `json:"height,omitempty"`
	// Dropped is set on an image whose bytes were not kept (a transcript
	// over its cap): the model gets a note in its place.
	Dropped bool `json:"dropped,omitempty"`
}

// formats maps a name's extension to its MIME type.
var formats = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
	".gif": "image/gif", ".webp": "image/webp",
}

// IsImagePath reports whether a path names a picture by its extension.
func IsImagePath(path string) bool {
	_, ok := formats[strings.ToLower(filepath.Ext(path))]
	return ok
}

// MIMEOf is the MIME type a path's extension names, "" if none.
func MIMEOf(path string) string { return formats[strings.ToLower(filepath.Ext(path))] }

// Load reads the picture at path. It fails with a clear error (without
// the path: the caller names the file) for a file that is unreadable,
// over MaxBytes, not a picture by its name, or whose bytes are not the
// format its name says.
func Load(path string) (Image, error) {
	want := MIMEOf(path)
	if want == "" {
		return Image{}, errors.New("not a picture by its name (.png, .jpg, .jpeg, .gif or .webp)")
	}
	// Stat first: opening a FIFO named like a picture would wait for a writer.
	if fi, err := os.Stat(path); err != nil {
		return Image{}, fmt.Errorf("cannot read it: %w", bare(err))
	} else if !fi.Mode().IsRegular() {
		return Image{}, errors.New("not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return Image{}, fmt.Errorf("cannot read it: %w", bare(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Image{}, fmt.Errorf("cannot read it: %w", bare(err))
	}
	if !fi.Mode().IsRegular() {
		return Image{}, errors.New("not a regular file")
	}
	if fi.Size() > MaxBytes {
		return Image{}, fmt.Errorf("%s is over the %s limit for an image", Size(fi.Size()), Size(MaxBytes))
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return Image{}, fmt.Errorf("cannot read it: %w", bare(err))
	}
	return FromBytes(filepath.Base(path), want, data)
}

// bare is a file error without the path it repeats.
func bare(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// FromBytes checks data as a picture of the given MIME type ("" for any
// of the four: a browser's or an editor's word is checked, not trusted)
// and reads its dimensions.
func FromBytes(name, mime string, data []byte) (Image, error) {
	if len(data) > MaxBytes {
		return Image{}, fmt.Errorf("%s is over the %s limit for an image", Size(int64(len(data))), Size(MaxBytes))
	}
	got := Sniff(data)
	if got == "" {
		return Image{}, errors.New("the bytes are not a PNG, JPEG, GIF or WebP picture")
	}
	if mime != "" && mime != got {
		return Image{}, fmt.Errorf("named %s but the bytes are %s", short(mime), short(got))
	}
	w, h := dimensions(got, data)
	return Image{Name: name, MIME: got, Data: data, Width: w, Height: h}, nil
}

// Sniff is the MIME type of a picture by its magic bytes, "" if none of
// the four.
func Sniff(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte{0xff, 0xd8, 0xff}):
		return "image/jpeg"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "image/gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// dimensions reads width and height from the header; 0, 0 if it cannot.
func dimensions(mime string, data []byte) (int, int) {
	if mime == "image/webp" {
		return webpSize(data)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0
	}
	return cfg.Width, cfg.Height
}

// webpSize reads a WebP header (the standard library has no decoder):
// lossy VP8, lossless VP8L, or extended VP8X.
func webpSize(b []byte) (int, int) {
	if len(b) < 30 {
		return 0, 0
	}
	switch string(b[12:16]) {
	case "VP8 ":
		w := int(binary.LittleEndian.Uint16(b[26:28]) & 0x3fff)
		h := int(binary.LittleEndian.Uint16(b[28:30]) & 0x3fff)
		return w, h
	case "VP8L":
		if b[20] != 0x2f {
			return 0, 0
		}
		v := binary.LittleEndian.Uint32(b[21:25])
		return int(v&0x3fff) + 1, int((v>>14)&0x3fff) + 1
	case "VP8X":
		w := int(b[24]) | int(b[25])<<8 | int(b[26])<<16
		h := int(b[27]) | int(b[28])<<8 | int(b[29])<<16
		return w + 1, h + 1
	}
	return 0, 0
}

// DataURL is the picture as the chat API's image_url takes it.
func (im Image) DataURL() string {
	return "data:" + im.MIME + ";base64," + base64.StdEncoding.EncodeToString(im.Data)
}

// Hash is a short digest of the bytes, to tell one version from another.
func (im Image) Hash() string {
	sum := sha256.Sum256(im.Data)
	return fmt.Sprintf("%x", sum[:6])
}

// Describe is one line saying what the picture is: name, format, size and
// dimensions.
func (im Image) Describe() string {
	name := im.Name
	if name == "" {
		name = "image"
	}
	s := fmt.Sprintf("%s (%s, %s", name, short(im.MIME), Size(int64(len(im.Data))))
	if im.Width > 0 && im.Height > 0 {
		s += fmt.Sprintf(", %d×%d", im.Width, im.Height)
	}
	return s + ")"
}

func short(mime string) string { return strings.ToUpper(strings.TrimPrefix(mime, "image/")) }

// Size shows a byte count the way a person reads it.
func Size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
