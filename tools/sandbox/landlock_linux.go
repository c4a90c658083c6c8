//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Landlock restricts the process that asks, for good, and go-landlock
// applies it to every thread of the Go process (psx) since this kernel's
// ABI is below 8. aci must stay free, so the restriction happens in a child:
// the aci binary (or test binary) re-executes itself with landlockMarker as
// argv[1]; the init below catches that before main runs, restricts itself
// and execs the command, which inherits the domain. Exec keeps the pid, so
// the process group, signals and exit status are those of the command.
const landlockMarker = "__aci_sandbox_landlock__"

func init() {
	if len(os.Args) < 4 || os.Args[1] != landlockMarker {
		return
	}
	// argv: exe marker policy-json -- command...
	err := landlockExec(os.Args[2], os.Args[4:])
	fmt.Fprintf(os.Stderr, "aci sandbox (landlock): %v\n", err)
	os.Exit(126)
}

// landlockExec restricts this process to the policy and execs argv; it
// returns only on failure, and then nothing ran uncontained.
func landlockExec(policyJSON string, argv []string) error {
	var p Policy
	if err := json.Unmarshal([]byte(policyJSON), &p); err != nil {
		return fmt.Errorf("bad policy: %w", err)
	}
	if len(argv) == 0 {
		return errors.New("no command")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	if err := restrictLandlock(p); err != nil {
		return err
	}
	if len(p.Layered) > 0 && p.PrivateTmp != "" {
		// Landlock cannot layer the caches: they are read-only, and the
		// tools that need a writable one get theirs in the private /tmp.
		for _, kv := range cacheEnv(filepath.Join(p.PrivateTmp, "tmp", ".aci-cache")) {
			os.Setenv(kv[0], kv[1])
		}
	}
	dropCapabilities()
	return syscall.Exec(path, argv, os.Environ())
}

func probeLandlock() error {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil || v < 1 {
		return fmt.Errorf("the kernel offers no Landlock (%v)", err)
	}
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		return fmt.Errorf("cannot re-execute aci: %w", err)
	}
	return nil
}

func landlockArgv(p Policy, argv []string, _ string) ([]string, error) {
	if err := probeLandlock(); err != nil {
		return nil, err
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	return append([]string{"/proc/self/exe", landlockMarker, string(b), "--"}, argv...), nil
}

// restrictLandlock allows reading and running everything but the hidden
// paths, and writing the writable roots (minus hidden paths) and the
// harmless devices. Landlock only grants, it cannot carve a hole: a tree
// that holds a hidden path is granted entry by entry around it. Listing
// directories stays allowed everywhere, so a secret store's file names are
// visible but not their content.
func restrictLandlock(p Policy) error {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		return fmt.Errorf("the kernel offers no Landlock (%v)", err)
	}
	var ro, rw grants
	ro.around("/", p.Hidden)
	for _, r := range p.WritableRoots() {
		// Policy.ReadOnly is not carved out here: Landlock only grants,
		// so a carve-out would take the right to create files from the
		// folders above it, the workspace root included. bwrap and
		// sandbox-exec keep those paths read-only; Landlock cannot.
		rw.around(r, p.Hidden)
	}
	// Renaming across folders needs "refer" (ABI 2+); asked of an ABI 1
	// kernel, go-landlock's best effort would enforce nothing at all.
	rwDirs := landlock.RWDirs(rw.dirs...)
	if abi >= 2 {
		rwDirs = rwDirs.WithRefer()
	}
	rules := []landlock.Rule{
		landlock.PathAccess(llsys.AccessFSReadDir, "/"),
		// Entries listed while splitting a tree may vanish before the rule
		// opens them (other programs' temp files): nothing to grant then.
		landlock.RODirs(ro.dirs...).IgnoreIfMissing(),
		landlock.ROFiles(ro.files...).IgnoreIfMissing(),
		rwDirs.IgnoreIfMissing(),
		landlock.RWFiles(rw.files...).IgnoreIfMissing(),
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx").WithIoctlDev().IgnoreIfMissing(),
		landlock.RWDirs("/dev/pts", "/dev/shm").WithIoctlDev().IgnoreIfMissing(),
	}
	// BestEffort downgrades to what the kernel offers (ABI 1 at least,
	// checked above), so an older kernel still gets the write limits.
	if err := landlock.V7.BestEffort().RestrictPaths(rules...); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	return restrictLandlockNet(abi, p.ProxyPort)
}

// restrictLandlockNet lets the command open TCP connections to proxyPort
// only (0: none), where the kernel has network rules (ABI 4); from ABI 10
// it may send UDP nowhere (DNS included: the proxy resolves names). The
// rules know ports, not addresses: the port is open on every host, which
// only matters when a host other than aci listens on it.
func restrictLandlockNet(abi, proxyPort int) error {
	if abi < landlockNetABI {
		return nil // NetContained said so: the network stays open
	}
	cfg, err := landlock.NewConfig(landlock.AccessNetSet(llsys.AccessNetConnectTCP | llsys.AccessNetConnectSendUDP))
	if err != nil {
		return fmt.Errorf("landlock network: %w", err)
	}
	var rules []landlock.Rule
	if proxyPort > 0 && proxyPort < 1<<16 {
		rules = append(rules, landlock.ConnectTCP(uint16(proxyPort)))
	}
	if err := cfg.BestEffort().RestrictNet(rules...); err != nil {
		return fmt.Errorf("landlock network: %w", err)
	}
	return nil
}

// grants collects the paths one kind of access is granted on.
type grants struct{ dirs, files []string }

// around grants root whole when no hidden path lies in it, else each of its
// entries around the hidden ones, recursing into those that hold one.
func (g *grants) around(root string, hidden []string) {
	if underAny(root, hidden) {
		return
	}
	if !holdsAny(root, hidden) {
		g.add(root, hidden)
		return
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range ents {
		p := filepath.Join(root, e.Name())
		if e.IsDir() && holdsAny(p, hidden) {
			g.around(p, hidden)
			continue
		}
		if !underAny(p, hidden) {
			g.add(p, hidden)
		}
	}
}

// add grants path; a symlink counts as its target (Landlock opens rules by
// path, following links), and one leading to or above a hidden path is
// left out.
func (g *grants) add(path string, hidden []string) {
	r, err := filepath.EvalSymlinks(path)
	if err != nil {
		return
	}
	if r != path && (underAny(r, hidden) || holdsAny(r, hidden)) {
		return
	}
	fi, err := os.Stat(r)
	if err != nil {
		return
	}
	if fi.IsDir() {
		g.dirs = append(g.dirs, path)
	} else {
		g.files = append(g.files, path)
	}
}

// holdsAny reports whether a hidden path lies strictly below dir.
func holdsAny(dir string, hidden []string) bool {
	for _, h := range hidden {
		if h != dir && within(h, dir) {
			return true
		}
	}
	return false
}
