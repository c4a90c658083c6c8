//go:build !linux

package sandbox

import (
	"net"
	"os"
)

// NetContained reports whether contained commands are kept off the
// network: not on this system (sandbox-exec leaves it open).
func (s *Sandbox) NetContained() bool { return false }

// Link is a contained command's way to the proxy; this system has none.
type Link struct {
	ln   net.Listener
	port int
}

// NewLink returns nil: commands here reach the network directly.
func (s *Sandbox) NewLink() (*Link, error) { return nil, nil }

// Listener is what the proxy serves for this command.
func (l *Link) Listener() net.Listener { return l.ln }

// Port is the loopback port HTTP_PROXY names.
func (l *Link) Port() int { return l.port }

// ExtraFiles are the files the command's process must inherit.
func (l *Link) ExtraFiles() []*os.File { return nil }

// Started closes aci's copies of the files the command inherited.
func (l *Link) Started() {}

// Close ends the link.
func (l *Link) Close() error { return nil }

func (l *Link) front(argv []string) []string { return argv }
