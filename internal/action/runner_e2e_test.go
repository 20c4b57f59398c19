package action_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// The helpers of the container end-to-end test: the action image built
// from the repository's Dockerfile offline, and a runner that starts it
// the way GitHub's runner starts a Docker container action.

const repoRoot = "../.."

// docker runs the docker CLI (what the runner uses) and returns its
// standard output.
func docker(t *testing.T, ctx context.Context, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, "docker", args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("docker %s: %v\n%.4000s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// bridgeGateway is the host's address on the engine's default bridge,
// where a container on that bridge reaches servers of the test.
func bridgeGateway(t *testing.T) string {
	eng := testenv.Engine(t)
	bridge, err := eng.NetworkInspect(context.Background(), "bridge", client.NetworkInspectOptions{})
	if err != nil || len(bridge.Network.IPAM.Config) == 0 {
		t.Skipf("no default bridge: %v", err)
	}
	gw := bridge.Network.IPAM.Config[0].Gateway
	if !gw.IsValid() { // the default bridge often lists only its subnet
		gw = bridge.Network.IPAM.Config[0].Subnet.Addr().Next()
	}
	return gw.String()
}

// goBase builds the Dockerfile's build-stage base without a registry: the
// Debian sandbox image (debootstrap, `make image`) plus the host's Go
// toolchain (the one go.mod asks for) and a module cache holding this
// module's dependencies, so `go mod download` needs no network.
func goBase(t *testing.T, ctx context.Context, debian string) string {
	t.Helper()
	dir := t.TempDir()
	goroot := strings.TrimSpace(goOut(t, repoRoot, "env", "GOROOT"))
	if out, err := exec.Command("cp", "-a", goroot, filepath.Join(dir, "go")).CombinedOutput(); err != nil {
		t.Fatalf("copying GOROOT: %v %s", err, out)
	}
	hostCache := strings.TrimSpace(goOut(t, repoRoot, "env", "GOMODCACHE"))
	proxy := strings.TrimSpace(goOut(t, repoRoot, "env", "GOPROXY"))
	cmd := exec.Command("go", "mod", "download")
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=auto", "GOMODCACHE="+filepath.Join(dir, "gomod"), "GOFLAGS=-modcacherw",
		"GOPROXY=file://"+filepath.Join(hostCache, "cache", "download")+","+proxy)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go mod download: %v %s", err, out)
	}
	df := "FROM " + debian + "\nCOPY go /usr/local/go\nCOPY gomod /go/pkg/mod\n" +
		"ENV PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin GOPATH=/go GOPROXY=off GOTOOLCHAIN=local\n"
	os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(df), 0o644)
	sum, _ := os.ReadFile(filepath.Join(repoRoot, "go.sum"))
	ref := fmt.Sprintf("mcp-audit-actrun-go:%x", sha256.Sum256(append(sum, goroot...)))[:len("mcp-audit-actrun-go:")+16]
	docker(t, ctx, "build", "-q", "-t", ref, dir)
	t.Cleanup(func() { exec.Command("docker", "rmi", "-f", ref).Run() })
	return ref
}

func goOut(t *testing.T, dir string, args ...string) string {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=auto") // the toolchain go.mod asks for
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %v: %v", args, err)
	}
	return string(out)
}

// actionImage builds the repository's Dockerfile as the runner does at the
// start of every job using the action (docker build of the action's
// directory), with the base images replaced by local ones, and reports how
// long the build took.
func actionImage(t *testing.T, ctx context.Context) string {
	t.Helper()
	debian := testenv.Image(t) // Debian bookworm with node and npm
	start := time.Now()
	gob := goBase(t, ctx, debian)
	baseTime := time.Since(start)
	ref := fmt.Sprintf("mcp-audit-actrun-action:%d", time.Now().UnixNano())
	start = time.Now()
	docker(t, ctx, "build", "-q", "-t", ref, "--build-arg", "GO_IMAGE="+gob, "--build-arg", "NODE_IMAGE="+debian,
		"--build-arg", "VERSION=v0.0.0-e2e", repoRoot)
	t.Cleanup(func() { exec.Command("docker", "rmi", "-f", ref).Run() })
	t.Logf("action start-up: local build bases %s, action image build (docker build of the Dockerfile) %s",
		baseTime.Round(time.Second), time.Since(start).Round(time.Second))
	return ref
}

// runner is a GitHub runner's layout for one job: the directories it
// mounts into a container action and the files of its file commands.
type runner struct {
	t        *testing.T
	root     string
	ws       string // the checkout, mounted at /github/workspace
	env      map[string]string
	exitCode int
	stdout   string
}

// newJob lays out a job around the workspace ws for event (a payload
// from testdata/events, with its base commit filled in). The workspace is
// owned by the runner's user (1001), not by the container's root.
func newJob(t *testing.T, ws, event, apiURL string, inputs map[string]string) *runner {
	root := t.TempDir()
	r := &runner{t: t, root: root, ws: ws}
	for _, d := range []string{"_github_home", "_github_workflow", "_runner_file_commands"} {
		os.MkdirAll(filepath.Join(root, d), 0o777)
	}
	payload, err := os.ReadFile(filepath.Join("testdata", "events", event+".json"))
	if err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSpace(testenv.GitOut(t, ws, "rev-list", "--max-parents=0", "HEAD"))
	payload = bytes.ReplaceAll(payload, []byte("BASE_SHA"), []byte(base))
	os.WriteFile(filepath.Join(root, "_github_workflow", "event.json"), payload, 0o644)
	for _, f := range []string{"set_output_1", "step_summary_1", "set_env_1", "add_path_1"} {
		os.WriteFile(filepath.Join(root, "_runner_file_commands", f), nil, 0o666)
	}
	r.env = map[string]string{
		"HOME": "/github/home", "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": event,
		"GITHUB_EVENT_PATH": "/github/workflow/event.json", "GITHUB_WORKSPACE": "/github/workspace",
		"GITHUB_OUTPUT": "/github/file_commands/set_output_1", "GITHUB_STEP_SUMMARY": "/github/file_commands/step_summary_1",
		"GITHUB_ENV": "/github/file_commands/set_env_1", "GITHUB_PATH": "/github/file_commands/add_path_1",
		"GITHUB_REPOSITORY": "acme/tools", "GITHUB_REPOSITORY_OWNER": "acme", "GITHUB_REF_NAME": "main",
		"GITHUB_API_URL": strings.TrimSuffix(apiURL, "/"), "GITHUB_SERVER_URL": "https://github.example",
		"GITHUB_SHA": strings.TrimSpace(testenv.GitOut(t, ws, "rev-parse", "HEAD")), "GITHUB_RUN_ID": "7",
		"GITHUB_WORKFLOW_REF": "acme/tools/.github/workflows/mcp-audit.yml@refs/pull/42/merge", "GITHUB_JOB": "audit",
		// Paths on the runner's host: GitHub passes them, but does not mount them.
		"RUNNER_TEMP": "/home/runner/work/_temp", "RUNNER_TOOL_CACHE": "/opt/hostedtoolcache",
		"RUNNER_WORKSPACE": "/home/runner/work/tools", "RUNNER_OS": "Linux", "RUNNER_ARCH": "X64",
		"INPUT_GITHUB-TOKEN": e2eToken, "INPUT_COMMENT": "true", "INPUT_CONFIG": "mcp-audit.yml",
		"INPUT_FAIL-ON": "", "INPUT_NETWORK": "", "INPUT_UPDATE-BASELINES": "false", "INPUT_SARIF": "", "INPUT_SERVERS": "",
		"INPUT_REPORT-ARTIFACT": "",
	}
	for k, v := range inputs {
		r.env["INPUT_"+strings.ToUpper(k)] = v
	}
	exec.Command("chown", "-R", "1001:1001", ws).Run()
	return r
}

// run starts the action image like the runner: docker run with the
// runner's mounts, environment and working directory.
func (r *runner) run(ctx context.Context, image string, extraEnv ...string) {
	name := fmt.Sprintf("mcp-audit-actrun-%d", time.Now().UnixNano())
	args := []string{"run", "--name", name, "--workdir", "/github/workspace",
		"-v", "/var/run/docker.sock:/var/run/docker.sock",
		"-v", filepath.Join(r.root, "_github_home") + ":/github/home",
		"-v", filepath.Join(r.root, "_github_workflow") + ":/github/workflow",
		"-v", filepath.Join(r.root, "_runner_file_commands") + ":/github/file_commands",
		"-v", r.ws + ":/github/workspace"}
	for k, v := range r.env {
		args = append(args, "-e", k+"="+v)
	}
	// The harness's settings (the sinkhole answers the fixtures' reserved
	// names, every canary is planted) reach the container as they reach
	// any other mcp-audit the tests start.
	for _, kv := range append(testenv.HarnessEnv(), extraEnv...) {
		args = append(args, "-e", kv)
	}
	args = append(args, image)
	defer exec.Command("docker", "rm", "-f", name).Run()
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, "docker", args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r.exitCode = cmd.ProcessState.ExitCode()
	if err != nil && r.exitCode < 0 {
		r.t.Fatalf("docker run: %v", err)
	}
	r.stdout = out.String()
	r.t.Logf("action exited %d\nstderr: %.3000s", r.exitCode, errb.String())
}

// file reads a file the action wrote: rel is relative to the runner's root.
func (r *runner) file(rel string) string {
	b, _ := os.ReadFile(filepath.Join(r.root, rel))
	return string(b)
}

// output reads a step output: name<<DELIMITER\nvalue\nDELIMITER.
func (r *runner) output(name string) string {
	s := r.file("_runner_file_commands/set_output_1")
	i := strings.Index(s, name+"<<")
	if i < 0 {
		return ""
	}
	delim, body, _ := strings.Cut(s[i+len(name)+2:], "\n")
	val, _, _ := strings.Cut(body, "\n"+delim)
	return val
}
