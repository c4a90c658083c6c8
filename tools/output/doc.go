// Package output turns what programs write into text for the model and a
// person: bounded capture of a stream (head and tail), live text of a
// running command, terminal escapes stripped, and truncation to a head and
// a tail with a note of what was cut.
package output
