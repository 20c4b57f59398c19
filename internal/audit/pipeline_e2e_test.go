package audit_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
	"github.com/mcp-audit/mcp-audit/internal/variant"
)

var fixture = filepath.Join("..", "..", "testdata", "fixtures", "fixture-server")

var (
	cacheOnce sync.Once
	cacheDir  string
)

// deps returns real adapters: the Docker engine and a fetcher using the
// configured npm registry, with one install cache for the whole test run.
func deps(t *testing.T) audit.Deps {
	t.Helper()
	eng := testenv.Engine(t)
	testenv.Image(t)
	cacheOnce.Do(func() {
		cacheDir = os.Getenv("MCP_AUDIT_TEST_CACHE")
		if cacheDir == "" {
			cacheDir, _ = os.MkdirTemp("", "mcp-audit-test-cache-*")
		}
	})
	reg, err := target.NewRegistry(target.LoadNPMConfig(os.Getenv))
	if err != nil {
		t.Fatal(err)
	}
	return audit.Deps{Engine: eng, Fetcher: &target.Fetcher{Registry: reg, CacheDir: cacheDir, Installer: testenv.Installer(t)}, Secret: testSecret}
}

// testSecret is the end-to-end tests' installation secret: what the runs
// vary is then the same in every test run, as on one installation.
var testSecret = variant.Secret("mcp-audit end-to-end tests")

func run(t *testing.T, o audit.Options) *m.Manifest {
	t.Helper()
	return runResult(t, o).Manifest
}

func findings(man *m.Manifest) []policy.Finding {
	return policy.Evaluate(man, policy.Policy{})
}

// TestRealServers audits servers from the npm registry: each must answer
// the handshake, list its tools, and show no sensitive or canary behavior.
func TestRealServers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		target string
		args   []string
		tool   string
	}{
		{"npm:@modelcontextprotocol/server-memory", nil, "create_entities"},
		{"npm:@modelcontextprotocol/server-filesystem", []string{"{workspace}"}, "read_text_file"},
		{"npm:@modelcontextprotocol/server-everything", nil, "echo"},
	} {
		t.Run(tc.target, func(t *testing.T) {
			// Startup and idle only: exercising tools is tested separately
			// (server-everything's get-env tool hands out the environment).
			man := run(t, audit.Options{Target: tc.target, Args: tc.args, Calls: audit.CallsNone})
			if man.Outcome.Status != m.StatusOK {
				t.Fatalf("outcome %+v", man.Outcome)
			}
			found := false
			for _, tool := range man.Tools {
				found = found || tool.Name == tc.tool
				if !strings.HasPrefix(tool.Digest, "sha256:") {
					t.Errorf("tool %s not pinned", tool.Name)
				}
			}
			if !found {
				t.Errorf("tool %s not listed; got %d tools", tc.tool, len(man.Tools))
			}
			for _, f := range findings(man) {
				if f.Kind == policy.KindCanary || f.Kind == policy.KindSensitive || f.Severity >= policy.High {
					t.Errorf("unexpected finding: %+v", f)
				}
			}
			st := man.PhaseByName(m.PhaseStartup)
			if st == nil || len(st.Processes) == 0 || st.Processes[0].Path != audit.NodeBin {
				t.Errorf("startup phase lacks the server process: %+v", st)
			}
		})
	}
}

func hasFinding(fs []policy.Finding, kind string, sev policy.Severity, subject string) bool {
	for _, f := range fs {
		if f.Kind == kind && f.Severity == sev && strings.Contains(f.Subject, subject) {
			return true
		}
	}
	return false
}

// TestFixtureBehaviors checks that each bad behavior of the fixture server
// is detected or handled, with evidence in the manifest.
func TestFixtureBehaviors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode  string
		check func(t *testing.T, man *m.Manifest)
	}{
		{"read-credentials", func(t *testing.T, man *m.Manifest) {
			st := man.PhaseByName(m.PhaseStartup)
			got := map[string]bool{}
			for _, h := range st.Canaries {
				got[h.Canary+" "+h.How] = true
			}
			if !got["file:~/.aws/credentials file-read"] || !got["file:~/.ssh/id_rsa file-read"] {
				t.Errorf("canary hits %+v", st.Canaries)
			}
			if !hasFinding(findings(man), policy.KindCanary, policy.Critical, "file:~/.ssh/id_rsa") {
				t.Errorf("no critical canary finding")
			}
		}},
		{"symlink-canary", func(t *testing.T, man *m.Manifest) {
			st := man.PhaseByName(m.PhaseStartup)
			if len(st.Canaries) != 1 || st.Canaries[0].Canary != "file:~/.ssh/id_rsa" || !strings.Contains(st.Canaries[0].Evidence, "/tmp/innocent-* -> ~/.ssh/id_rsa") {
				t.Errorf("canary through symlink: %+v", st.Canaries)
			}
		}},
		{"exec-shell", func(t *testing.T, man *m.Manifest) {
			st := man.PhaseByName(m.PhaseStartup)
			var shell *m.Process
			for i, p := range st.Processes {
				if p.Path == "/bin/sh" {
					shell = &st.Processes[i]
				}
			}
			if shell == nil || !shell.Shell || strings.Join(shell.Argv, " ") != "/bin/sh -c id -u > /dev/null" {
				t.Fatalf("shell process: %+v", st.Processes)
			}
			if !hasFinding(findings(man), policy.KindShell, policy.Medium, "/bin/sh") {
				t.Errorf("no shell finding")
			}
		}},
		{"bashrc", func(t *testing.T, man *m.Manifest) {
			st := man.PhaseByName(m.PhaseStartup)
			ok := false
			for _, f := range st.Files {
				ok = ok || f.Path == "~/.bashrc" && f.Access == m.AccessWrite && f.Result == m.ResultOK && f.Category == m.CatShellRC
			}
			if !ok {
				t.Errorf("bashrc write not recorded: %+v", st.Files)
			}
			if !hasFinding(findings(man), policy.KindPersistence, policy.Critical, "~/.bashrc") {
				t.Errorf("no persistence finding")
			}
		}},
		{"exit-1", func(t *testing.T, man *m.Manifest) {
			if man.Outcome.Status != m.StatusCrashed || man.Outcome.ExitCode == nil || *man.Outcome.ExitCode != 1 {
				t.Errorf("outcome %+v", man.Outcome)
			}
			if !strings.Contains(man.Run.StderrTail, "FIXTURE_API_KEY is not set") {
				t.Errorf("stderr tail %q", man.Run.StderrTail)
			}
		}},
		{"never-answer", func(t *testing.T, man *m.Manifest) {
			if man.Outcome.Status != m.StatusNoHandshake {
				t.Errorf("outcome %+v", man.Outcome)
			}
			// It ignores the end of its input: the entrypoint must end it
			// on request, without the engine's SIGKILL.
			for _, n := range man.Run.Notes {
				if strings.Contains(n, "killed by the engine") {
					t.Errorf("note: %s", n)
				}
			}
		}},
		{"leak-env", func(t *testing.T, man *m.Manifest) {
			st := man.PhaseByName(m.PhaseStartup)
			if len(st.Canaries) != 1 || st.Canaries[0].Canary != "env:GITHUB_TOKEN" || st.Canaries[0].How != "mcp-output" {
				t.Errorf("canaries %+v", st.Canaries)
			}
			if d := man.Tools[0].Description; !strings.Contains(d, "<canary env:GITHUB_TOKEN>") || strings.Contains(d, "ghp_") {
				t.Errorf("description not redacted: %q", d)
			}
		}},
		{"hog-memory", func(t *testing.T, man *m.Manifest) {
			if man.Outcome.Status != m.StatusKilled || !strings.Contains(man.Outcome.Reason, "memory") {
				t.Errorf("outcome %+v", man.Outcome)
			}
		}},
		{"noisy", func(t *testing.T, man *m.Manifest) {
			if man.Outcome.Status != m.StatusOK || len(man.Tools) != 1 || man.Run.StdoutNoise != 2 {
				t.Errorf("outcome %+v tools %d noise %d", man.Outcome, len(man.Tools), man.Run.StdoutNoise)
			}
		}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			man := run(t, audit.Options{Target: fixture, Args: []string{tc.mode}, Sandbox: audit.SandboxOptions{Limits: sandbox.Limits{MemoryBytes: 256 << 20}}, Timing: audit.TimingOptions{StartupTimeout: 5 * time.Second}})
			tc.check(t, man)
		})
	}
}

// TestManifestsAreStable audits twice and demands identical bytes outside
// the run metadata block.
func TestManifestsAreStable(t *testing.T) {
	for _, o := range []audit.Options{
		{Target: fixture, Args: []string{"symlink-canary", "exec-shell", "bashrc"}},
		{Target: "npm:@modelcontextprotocol/server-memory"},
	} {
		t.Run(o.Target, func(t *testing.T) {
			var enc [2][]byte
			for i := range enc {
				man := run(t, o)
				man.Run = m.Run{}
				b, err := m.Encode(man)
				if err != nil {
					t.Fatal(err)
				}
				enc[i] = b
			}
			if !bytes.Equal(enc[0], enc[1]) {
				os.WriteFile(filepath.Join(t.TempDir(), "a.json"), enc[0], 0o644)
				t.Fatalf("manifests differ:\n%s\n----\n%s", enc[0], enc[1])
			}
		})
	}
}

// TestNothingLeftBehind interrupts an audit midway and checks that neither
// it nor the audits before it left containers or volumes.
func TestNothingLeftBehind(t *testing.T) {
	d := deps(t)
	eng := testenv.Engine(t)
	vols := func() int {
		res, err := eng.VolumeList(context.Background(), client.VolumeListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.Items)
	}
	before := vols()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Cancel while the server is starting (it never answers).
		time.Sleep(3 * time.Second)
		cancel()
	}()
	_, err := audit.Run(ctx, d, audit.Options{Target: fixture, Args: []string{"never-answer"}, Timing: audit.TimingOptions{StartupTimeout: time.Minute}})
	if err == nil {
		t.Fatal("an interrupted audit must return an error")
	}
	if left := testenv.Leftovers(t); len(left) != 0 {
		t.Errorf("containers left behind: %v", left)
	}
	if after := vols(); after != before {
		t.Errorf("volumes: %d before, %d after", before, after)
	}
	// A crashed mcp-audit's container (its owner pid is gone) is collected
	// by GC; a live owner's is kept.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	mk := func(pid int) string {
		res, err := eng.ContainerCreate(context.Background(), client.ContainerCreateOptions{
			Config: &container.Config{Image: sandbox.DefaultImage, Cmd: []string{"true"}, Labels: map[string]string{
				sandbox.LabelApp: "1", sandbox.LabelOwner: fmt.Sprintf("%s:%d", host, pid),
				sandbox.LabelDeadline: fmt.Sprint(time.Now().Add(time.Hour).Unix())}},
			HostConfig: &container.HostConfig{NetworkMode: "none"},
		})
		if err != nil {
			t.Fatal(err)
		}
		return res.ID
	}
	orphan, live := mk(dead.Process.Pid), mk(os.Getpid())
	defer eng.ContainerRemove(context.Background(), live, client.ContainerRemoveOptions{Force: true})
	if n, err := sandbox.GC(context.Background(), eng); err != nil || n < 1 {
		t.Errorf("GC removed %d (%v), want at least the orphan", n, err)
	}
	exists := func(id string) bool {
		_, err := eng.ContainerInspect(context.Background(), id, client.ContainerInspectOptions{})
		return err == nil
	}
	if exists(orphan) || !exists(live) {
		t.Errorf("after GC: orphan exists=%v (want false), live exists=%v (want true)", exists(orphan), exists(live))
	}
}
