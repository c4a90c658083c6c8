package main

import "strings"

// imageFlag is -i/--image: repeatable, one picture each.
type imageFlag []string

func (f *imageFlag) String() string { return strings.Join(*f, ",") }

func (f *imageFlag) Set(v string) error {
	*f = append(*f, v)
	return nil
}
