package sandbox

import (
	"fmt"
	"os"
)

// InContainer reports whether aci runs inside a container: the marker
// files Docker and Podman leave, the variable systemd-style runtimes and
// Podman set, or a Kubernetes pod's service variables.
func InContainer() bool {
	for _, f := range []string{"/.dockerenv", "/run/.containerenv"} {
		if _, err := os.Stat(f); err == nil {
			return true
		}
	}
	return os.Getenv("container") != "" || os.Getenv("KUBERNETES_SERVICE_HOST") != ""
}

// CheckContainer refuses to go on uncontained without being told: in a
// container where commands cannot be contained (no user namespaces, a
// seccomp profile that forbids them), mode workspace is an error that
// names the two ways out; outside containers the guard alone deciding is
// said once, as before. ModeContainer is said once at start.
func CheckContainer(mode string, notify func(string)) error {
	switch mode {
	case ModeContainer:
		if notify != nil {
			notify("commands run uncontained inside this container (ACI_SANDBOX=container): the container is the boundary")
		}
		return nil
	case ModeOff:
		return nil
	}
	if !InContainer() {
		return nil
	}
	if _, err := New(Policy{}, Options{}); err != nil {
		return fmt.Errorf("aci runs in a container where it cannot contain commands (%v): "+
			"set ACI_SANDBOX=container (or --sandbox=container) to make the container the boundary, "+
			"or let the container create user namespaces (see docs/container.md)", err)
	}
	return nil
}
