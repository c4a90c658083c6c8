//go:build linux

package sessiond

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// LayersEnv names the variable that tells the helper which cache folders
// to layer: a JSON Layers.
const LayersEnv = "ACI_SANDBOX_HELPER_LAYERS"

// Layer is one of the person's cache folders seen copy-on-write: Dir as
// it is on the machine, read-only beneath; what commands write there goes
// to Upper (Work is overlayfs's scratch folder, on the same file system),
// in the session's folder, gone when the session is.
type Layer struct {
	Dir   string `json:"dir"`
	Upper string `json:"upper"`
	Work  string `json:"work"`
}

// Layers is what the helper mounts before it serves: the layers, then
// ReadOnly bound read-only again over them (folders on PATH inside a
// cache, which the overlay would otherwise cover).
type Layers struct {
	Layers   []Layer  `json:"layers"`
	ReadOnly []string `json:"readonly,omitempty"`
}

// mountLayers mounts what LayersEnv asks for. A layer that cannot be
// mounted (a kernel without overlayfs in user namespaces) leaves its
// folder as the session's bwrap bound it, read-only; it is said on
// stderr, which aci keeps for its notes.
func mountLayers() {
	spec := os.Getenv(LayersEnv)
	os.Unsetenv(LayersEnv)
	if spec == "" {
		return
	}
	var l Layers
	if err := json.Unmarshal([]byte(spec), &l); err != nil {
		fmt.Fprintf(os.Stderr, "aci sandbox (session): bad layers: %v\n", err)
		return
	}
	var mounted []string
	for _, ly := range l.Layers {
		if err := mountLayer(ly); err != nil {
			fmt.Fprintf(os.Stderr, "aci sandbox (session): %s stays read-only: %v\n", ly.Dir, err)
			continue
		}
		mounted = append(mounted, ly.Dir)
	}
	for _, r := range l.ReadOnly {
		if !under(r, mounted) {
			continue
		}
		if err := unix.Mount(r, r, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			continue // gone meanwhile: nothing to keep
		}
		if err := unix.Mount("", r, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
			// Never leave it writable: cover it with an empty read-only folder.
			unix.Unmount(r, unix.MNT_DETACH)
			unix.Mount("tmpfs", r, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, "size=4k")
			fmt.Fprintf(os.Stderr, "aci sandbox (session): %s: %v\n", r, err)
		}
	}
}

// mountLayer mounts one overlay; userxattr lets it keep its own marks in
// a user namespace (Linux 5.11+), without them where the upper folder's
// file system has no user xattrs.
func mountLayer(ly Layer) error {
	for _, p := range []string{ly.Dir, ly.Upper, ly.Work} {
		if p == "" || strings.ContainsAny(p, ",:\\") {
			return fmt.Errorf("a path overlayfs cannot name: %q", p)
		}
	}
	opts := "lowerdir=" + ly.Dir + ",upperdir=" + ly.Upper + ",workdir=" + ly.Work
	flags := uintptr(unix.MS_NOSUID | unix.MS_NODEV)
	err := unix.Mount("overlay", ly.Dir, "overlay", flags, opts+",userxattr")
	if err != nil {
		err = unix.Mount("overlay", ly.Dir, "overlay", flags, opts)
	}
	return err
}

func under(p string, roots []string) bool {
	for _, r := range roots {
		if p == r || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}
