package fakeai

// ImageURLs returns the url of every image_url content part of the
// request, in order (data URLs for pictures aci sends).
func (r Request) ImageURLs() []string {
	var out []string
	msgs, _ := r.Raw["messages"].([]any)
	for _, m := range msgs {
		obj, _ := m.(map[string]any)
		parts, _ := obj["content"].([]any)
		for _, p := range parts {
			part, _ := p.(map[string]any)
			if part["type"] != "image_url" {
				continue
			}
			iu, _ := part["image_url"].(map[string]any)
			if u, ok := iu["url"].(string); ok {
				out = append(out, u)
			}
		}
	}
	return out
}
