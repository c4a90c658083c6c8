// Package secrets holds the set of secrets aci knows (its API key and the
// credentials it reads) and removes them from text on the way out, whole
// or split across the pieces of a stream.
package secrets
