package acp

import (
	"encoding/base64"
	"fmt"
	"path"

	"github.com/aci-dev/aci/tools/imagefile"
)

// imagesOf reads a prompt's image blocks: base64 data checked against
// its MIME type, bounded in size. A bad one refuses the prompt, nothing
// sent.
func imagesOf(blocks []contentBlock) ([]imagefile.Image, error) {
	var out []imagefile.Image
	for i, blk := range blocks {
		if blk.Type != "image" {
			continue
		}
		if blk.Data == "" {
			return nil, invalidParams("invalid params: prompt block %d: image without data", i)
		}
		if base64.StdEncoding.DecodedLen(len(blk.Data)) > imagefile.MaxBytes+3 {
			return nil, invalidParams("invalid params: prompt block %d: the image is over the %s limit", i, imagefile.Size(imagefile.MaxBytes))
		}
		data, err := base64.StdEncoding.DecodeString(blk.Data)
		if err != nil {
			return nil, invalidParams("invalid params: prompt block %d: the image's data is not base64: %v", i, err)
		}
		name := fmt.Sprintf("image %d", len(out)+1)
		if blk.URI != "" {
			name = path.Base(blk.URI)
		}
		im, err := imagefile.FromBytes(name, blk.MimeType, data)
		if err != nil {
			return nil, invalidParams("invalid params: prompt block %d: %v", i, err)
		}
		out = append(out, im)
	}
	return out, nil
}
