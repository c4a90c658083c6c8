package serve

import (
	"encoding/base64"
	"fmt"
	"net/http"

	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/tools/imagefile"
)

// Pictures with a message (docs/protocol.md §9): the page sends what was
// dropped or pasted with the next message, as base64 in "images".

// maxImages bounds the pictures of one message, together: what one
// picture may weigh (imagefile.MaxBytes).
const maxImages = imagefile.MaxBytes

// maxImagesBody is the body limit of a message: its pictures in base64
// (4 bytes for 3) and the text's own limit besides. The text alone keeps
// its 256 KiB (decodeMessage).
const maxImagesBody = maxImages/3*4 + 4 + maxMessageBody + 4<<10

// imageBody is one picture of a message.
type imageBody struct {
	Data string `json:"data"` // base64
	MIME string `json:"mime"` // image/png, image/jpeg, image/gif or image/webp
	Name string `json:"name,omitempty"`
}

// decodeImages checks a message's pictures: base64 that decodes to the
// format its MIME type says, all together within maxImages (413 past it).
func decodeImages(list []imageBody) ([]imagefile.Image, error) {
	var out []imagefile.Image
	total := 0
	for i, b := range list {
		total += base64.StdEncoding.DecodedLen(len(b.Data))
		if total > maxImages+3 {
			return nil, &tooLargeError{limit: maxImages, why: fmt.Sprintf("the images are over %s together: send fewer or smaller pictures", imagefile.Size(maxImages))}
		}
		data, err := base64.StdEncoding.DecodeString(b.Data)
		if err != nil {
			return nil, fmt.Errorf(`"images"[%d]: "data" is not base64: %v`, i, err)
		}
		name := b.Name
		if name == "" {
			name = fmt.Sprintf("image %d", i+1)
		}
		im, err := imagefile.FromBytes(name, b.MIME, data)
		if err != nil {
			return nil, fmt.Errorf(`"images"[%d] (%s): %v`, i, quoteShort(name), err)
		}
		out = append(out, im)
	}
	return out, nil
}

// attachImages gives the session's next question the message's pictures.
// Pictures cannot join a running turn as words do: they are refused with
// 409, and the client keeps them for its next message.
func (s *Server) attachImages(w http.ResponseWriter, ss *session.Session, imgs []imagefile.Image) bool {
	if len(imgs) == 0 || ss.Attached() {
		return true // a terminal's session: Send says why it takes no message
	}
	if ss.Running() {
		s.fail(w, http.StatusConflict, "a turn is running: send the pictures with the next message once it ends")
		return false
	}
	ss.AttachImages(imgs)
	return true
}
