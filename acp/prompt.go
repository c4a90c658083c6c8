package acp

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// maxPromptText bounds a prompt's text, embedded files included: the
// same 256 KiB aci serve takes in one message. A larger file is better
// linked (resource_link): the model then opens it as a window and reads
// what it needs.
const maxPromptText = 256 << 10

// tooLong is the error for a prompt over maxPromptText.
func tooLong(n int) *rpcError {
	return invalidParams("invalid params: the prompt's text is %d KiB, over aci's limit of %d KiB (a large file is better linked than embedded)", (n+1023)>>10, maxPromptText>>10)
}

// questionOf makes the user message of a prompt: its text, the embedded
// resources as context blocks, and the files it links (an @-mention),
// which are returned to be opened as file windows so the model sees them
// live.
func questionOf(blocks []contentBlock, cwd string) (question string, attach []string, err error) {
	if len(blocks) == 0 {
		return "", nil, invalidParams("invalid params: the prompt is empty")
	}
	var b strings.Builder
	var linked []string
	for i, blk := range blocks {
		switch blk.Type {
		case "text":
			b.WriteString(blk.Text)
		case "resource_link":
			if blk.URI == "" {
				return "", nil, invalidParams("invalid params: prompt block %d: resource_link without uri", i)
			}
			if path, ok := filePath(blk.URI, cwd); ok {
				attach = append(attach, path)
				linked = append(linked, path)
			} else {
				linked = append(linked, blk.URI)
			}
		case "resource":
			r := blk.Resource
			if r == nil || r.URI == "" {
				return "", nil, invalidParams("invalid params: prompt block %d: resource without resource.uri", i)
			}
			name := r.URI
			if path, ok := filePath(r.URI, cwd); ok {
				name = path
			}
			if r.Text == nil {
				fmt.Fprintf(&b, "\n(attached %s is binary and was left out)\n", name)
				continue
			}
			fmt.Fprintf(&b, "\n<context source=%q>\n%s\n</context>\n", name, strings.TrimSuffix(*r.Text, "\n"))
		case "image": // imagesOf
		case "audio":
			return "", nil, invalidParams("invalid params: prompt block %d: aci does not take %s content (see promptCapabilities)", i, blk.Type)
		default:
			return "", nil, invalidParams("invalid params: prompt block %d: unknown content type %q", i, blk.Type)
		}
	}
	if len(linked) > 0 {
		b.WriteString("\n\nAttached: " + strings.Join(linked, ", "))
	}
	if n := b.Len(); n > maxPromptText {
		return "", nil, tooLong(n)
	}
	question = strings.TrimSpace(b.String())
	if question == "" {
		return "", nil, invalidParams("invalid params: the prompt has no text")
	}
	return question, attach, nil
}

// filePath is the path of a file: URI, shown relative to cwd when inside.
func filePath(uri, cwd string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", false
	}
	p := filepath.Clean(u.Path)
	if rel, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel, true
	}
	return p, true
}
