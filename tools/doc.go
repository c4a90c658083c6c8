// Package tools performs aci's operations on the machine: files, shell
// commands and web fetches, the danger guard that judges commands and paths,
// and the truncation of long outputs. It knows nothing of windows or of the
// agent loop.
package tools
