// Package container tests aci's container image (the Dockerfile at the
// repository's root) with a real container runtime, and the Kubernetes
// example against the official API types.
package container

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/internal/testutil"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// TestKubernetesExampleDecodesStrictly decodes every document of the
// example into the official API types, refusing unknown fields, and checks
// what the example promises: an Indexed Job that runs one aci per task.
func TestKubernetesExampleDecodesStrictly(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root(), "docs", "examples", "kubernetes", "indexed-job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var job *batchv1.Job
	var tasks *corev1.ConfigMap
	for i, doc := range strings.Split(string(data), "\n---\n") {
		var meta struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		var into any
		switch meta.Kind {
		case "Job":
			job = &batchv1.Job{}
			into = job
		case "ConfigMap":
			tasks = &corev1.ConfigMap{}
			into = tasks
		case "PersistentVolumeClaim":
			into = &corev1.PersistentVolumeClaim{}
		default:
			t.Fatalf("document %d: unexpected kind %q", i, meta.Kind)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
			t.Errorf("document %d (%s) does not decode strictly: %v", i, meta.Kind, err)
		}
	}
	if job == nil || tasks == nil {
		t.Fatal("the example lacks its Job or its ConfigMap")
	}
	spec := job.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completion mode %v, want Indexed", spec.CompletionMode)
	}
	lines := strings.Split(strings.TrimSpace(tasks.Data["tasks.txt"]), "\n")
	if spec.Completions == nil || int(*spec.Completions) != len(lines) {
		t.Errorf("completions %v for %d tasks", spec.Completions, len(lines))
	}
	c := spec.Template.Spec.Containers[0]
	script := strings.Join(c.Args, "\n")
	for _, want := range []string{"JOB_COMPLETION_INDEX", "--output-schema", "--output-format json", "XDG_STATE_HOME"} {
		if !strings.Contains(script, want) {
			t.Errorf("the container's script lacks %s", want)
		}
	}
	var sandbox, key bool
	for _, e := range c.Env {
		sandbox = sandbox || (e.Name == "ACI_SANDBOX" && e.Value == "container")
		key = key || (e.Name == "OPENAI_API_KEY" && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil)
	}
	if !sandbox || !key {
		t.Errorf("env: ACI_SANDBOX=container %v, key from a secret %v", sandbox, key)
	}
	if sc := spec.Template.Spec.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Error("the pod may run as root")
	}
}

// podman finds the runtime, or skips (fails on CI, which installs it).
func podman(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("podman")
	if err == nil {
		if out, err := exec.Command(p, "info").CombinedOutput(); err != nil {
			t.Skipf("podman cannot run here: %v\n%s", err, out)
		}
		return p
	}
	testutil.Missing(t, "podman is not installed (apt-get install podman)")
	return ""
}

func run(t *testing.T, name string, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

var (
	imageOnce sync.Once
	imageErr  error
)

const image = "localhost/aci-test:latest"

// buildImage builds the image once: a base made from this machine's files
// (no registry is reachable), the static binary, the Dockerfile as it is.
func buildImage(t *testing.T, pm string) {
	t.Helper()
	imageOnce.Do(func() {
		ctx, err := os.MkdirTemp("", "aci-image-")
		if err != nil {
			imageErr = err
			return
		}
		defer os.RemoveAll(ctx)
		build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(ctx, "aci"), ".")
		build.Dir, build.Env = root(), append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			imageErr = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		if out, err := run(t, "bash", filepath.Join(root(), "container", "testbase.sh"), "localhost/aci-test-base"); err != nil {
			imageErr = fmt.Errorf("test base: %v\n%s", err, out)
			return
		}
		for _, f := range []string{"Dockerfile", ".dockerignore"} {
			data, _ := os.ReadFile(filepath.Join(root(), f))
			os.WriteFile(filepath.Join(ctx, f), data, 0o644)
		}
		// chroot isolation: RUN steps need no OCI runtime or cgroups,
		// which a machine that is itself a container may not offer.
		out, err := run(t, pm, "build", "-q", "--isolation=chroot", "--pull=never", "--build-arg", "BASE=localhost/aci-test-base",
			"--build-arg", "PACKAGES=", "-t", image, ctx)
		if err != nil {
			imageErr = fmt.Errorf("podman build: %v\n%s", err, out)
		}
	})
	if imageErr != nil {
		t.Fatal(imageErr)
	}
}

var (
	runtimeOnce sync.Once
	runtimeArgs []string
	runtimeWhy  string
)

// containerRuntime finds podman options under which a container starts
// here: the defaults, or runc with cgroupfs (crun refuses cgroups in
// hybrid mode). Limits stay within this process's own, which a machine
// without CAP_SYS_RESOURCE cannot raise. It skips, saying why, where no
// container can start.
func containerRuntime(t *testing.T, pm string) []string {
	t.Helper()
	runtimeOnce.Do(func() {
		limits := []string{"--ulimit", "nofile=1024:1024", "--ulimit", "nproc=4096:4096"}
		var whys []string
		for _, global := range [][]string{nil, {"--cgroup-manager=cgroupfs", "--runtime", "runc"}} {
			args := append(append(append([]string{}, global...), "run", "--rm"), limits...)
			out, err := run(t, pm, append(args, "localhost/aci-test-base", "/bin/true")...)
			if err == nil {
				runtimeArgs = args
				return
			}
			whys = append(whys, strings.TrimSpace(out))
		}
		runtimeWhy = strings.Join(whys, "; ")
	})
	if runtimeArgs == nil {
		t.Skipf("no container can start on this machine: %s", runtimeWhy)
	}
	return runtimeArgs
}

// aciIn runs aci -p in the image against the scripted model on this
// machine's loopback (the container shares the host's network).
func aciIn(t *testing.T, pm string, srv *fakeai.Server, opts []string, env ...string) (string, error) {
	args := append(append([]string{}, containerRuntime(t, pm)...), "--network=host", "-e", "OPENAI_BASE_URL="+srv.URL,
		"-e", "OPENAI_API_KEY=sk-container-test", "-e", "OPENAI_MODEL=test-model",
		// Nothing asked: what stops a write outside the workspace is
		// containment alone.
		"-e", "ACI_YES=1")
	args = append(args, opts...)
	for _, e := range env {
		args = append(args, "-e", e)
	}
	args = append(args, image, "-p", "write the marker")
	return run(t, pm, args...)
}

// markerReplies write a file in the workspace and one in the home folder
// (outside the workspace: a contained command cannot), then answer. The
// result the model gets back is in the last request.
func markerReplies(t *testing.T) *fakeai.Server {
	return fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(
			fakeai.Call{Window: "launcher", Action: "open", Params: map[string]any{"app": "bash"}},
			fakeai.Call{Window: "bash_1", Action: "run", Params: map[string]any{"command": "id -u; echo in > inside.txt && echo ok-inside; echo out > $HOME/outside.txt && echo ok-outside"}},
		)},
		fakeai.Reply{Content: "done"},
	)
}

func lastResult(srv *fakeai.Server) string {
	reqs := srv.Requests()
	if len(reqs) == 0 {
		return ""
	}
	return string(reqs[len(reqs)-1].Body)
}

func TestImageRunsAci(t *testing.T) {
	pm := podman(t)
	buildImage(t, pm)

	out, err := run(t, pm, "image", "inspect", "--format", "{{.Config.User}} {{.Size}}", image)
	if err != nil || !strings.HasPrefix(out, "10001:10001 ") {
		t.Errorf("image user: %q %v", out, err)
	}
	t.Logf("image: %s", strings.TrimSpace(out))

	// Podman's default profile: bwrap may or may not create its namespaces
	// here. Either aci contains the command, or it refuses to start
	// uncontained, naming the way out; it never runs uncontained unasked.
	srv := markerReplies(t)
	out, err = aciIn(t, pm, srv, nil)
	switch {
	case err != nil:
		if !strings.Contains(out, "ACI_SANDBOX=container") || len(srv.Requests()) != 0 {
			t.Errorf("refused without naming the way out, or after asking the model:\n%s", out)
		}
		t.Logf("default profile: aci refused: %s", strings.TrimSpace(out))
	default:
		res := lastResult(srv)
		if !strings.Contains(res, `\nok-inside`) || strings.Contains(res, `\nok-outside`) {
			t.Errorf("contained command's result: %s", tail(res))
		}
		t.Logf("default profile: commands contained (%s)", mechanism(res))
	}

	// Told that the container is the boundary: it runs, uncontained, as
	// the image's user, and says so at start.
	srv = markerReplies(t)
	out, err = aciIn(t, pm, srv, nil, "ACI_SANDBOX=container")
	if err != nil || !strings.Contains(out, "done") || !strings.Contains(out, "the container is the boundary") {
		t.Fatalf("ACI_SANDBOX=container: %v\n%s", err, out)
	}
	if res := lastResult(srv); !strings.Contains(res, `\n10001`) || !strings.Contains(res, `\nok-outside`) {
		t.Errorf("uncontained command's result: %s", tail(res))
	}
}

// TestImageRefusesUncontained: in a container where neither bwrap nor
// Landlock can work (a seccomp profile that takes Landlock away), aci
// does not run commands uncontained unasked: it exits 2 before asking the
// model anything, naming ACI_SANDBOX=container.
func TestImageRefusesUncontained(t *testing.T) {
	pm := podman(t)
	buildImage(t, pm)
	profile := filepath.Join(t.TempDir(), "no-landlock.json")
	os.WriteFile(profile, []byte(`{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
		{"names": ["landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self", "unshare"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38}]}`), 0o644)
	srv := markerReplies(t)
	out, err := aciIn(t, pm, srv, []string{"--security-opt", "seccomp=" + profile})
	if err == nil || !strings.Contains(out, "ACI_SANDBOX=container") || len(srv.Requests()) != 0 {
		t.Fatalf("want exit 2 naming ACI_SANDBOX=container before any request; err %v, %d requests:\n%s", err, len(srv.Requests()), out)
	}
	t.Logf("refused: %s", strings.TrimSpace(out))
}

// TestImageSandboxWithUserNamespaces: where the runtime lets the
// container create user namespaces, aci's own sandbox works inside it.
func TestImageSandboxWithUserNamespaces(t *testing.T) {
	pm := podman(t)
	buildImage(t, pm)
	srv := markerReplies(t)
	out, err := aciIn(t, pm, srv, []string{"--security-opt", "seccomp=unconfined", "--security-opt", "apparmor=unconfined",
		"--security-opt", "label=disable", "--cap-add", "SYS_ADMIN"})
	if err != nil {
		if strings.Contains(out, "ACI_SANDBOX=container") {
			t.Skipf("this machine lets no container create user namespaces: %s", strings.TrimSpace(out))
		}
		t.Fatalf("%v\n%s", err, out)
	}
	res := lastResult(srv)
	if !strings.Contains(res, `\nok-inside`) || strings.Contains(res, `\nok-outside`) {
		t.Errorf("the command was not contained: %s", tail(res))
	}
	t.Logf("contained by %s", mechanism(res))
}

// mechanism is what the containment hint names, when a write was refused.
func mechanism(res string) string {
	for _, k := range []string{"(bwrap)", "(landlock)"} {
		if strings.Contains(res, k) {
			return strings.Trim(k, "()")
		}
	}
	return "bwrap or landlock"
}

// tail is the end of a request body: the results the model got last.
func tail(s string) string {
	if i := strings.LastIndex(s, "$ id -u"); i >= 0 {
		return s[i:]
	}
	return s
}
