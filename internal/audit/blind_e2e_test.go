package audit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

// The tests in this file pair a harm that hides from the tracer or the
// classifier (a trick) with the same harm done plainly (the control). Both
// must be found and must fail the audit at the default --fail-on high.

// blindCase is one fixture run and what must be found in it.
type blindCase struct {
	target string // default: the fixture server
	args   []string
	// want is a finding that must be present: kind, minimum severity and a
	// part of its subject.
	kind    string
	sev     policy.Severity
	subject string
	// pass is set when the finding is below the default fail-on (anti-
	// analysis reads are medium by policy): the verdict must then equal
	// the control's, and is not required to fail.
	pass bool
	// check, if set, looks at the manifest further.
	check func(t *testing.T, man *m.Manifest)
}

func runBlind(t *testing.T, cases map[string]blindCase) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			target := tc.target
			if target == "" {
				target = fixture
			}
			man := run(t, audit.Options{Target: target, Args: tc.args,
				Calls: audit.CallsNone, Sandbox: audit.SandboxOptions{Limits: sandbox.Limits{MemoryBytes: 256 << 20}}, Timing: audit.TimingOptions{StartupTimeout: 10 * time.Second},
			})
			fs := findings(man)
			found := false
			for _, f := range fs {
				found = found || f.Kind == tc.kind && f.Severity >= tc.sev && strings.Contains(f.Subject, tc.subject)
			}
			if !found {
				t.Errorf("no %s finding at %s or above about %q; findings:", tc.kind, tc.sev, tc.subject)
				for _, f := range fs {
					t.Logf("  %s %s %s %s: %s", f.Severity, f.Kind, f.Phase, f.Subject, f.Evidence)
				}
			}
			if !tc.pass && !policy.Failed(fs, policy.High) {
				t.Errorf("verdict pass at fail-on high")
			}
			if tc.check != nil {
				tc.check(t, man)
			}
		})
	}
}

// tracedRead demands a canary read seen in the trace, not only by the
// access-time witness.
func tracedRead(name string) func(t *testing.T, man *m.Manifest) {
	return func(t *testing.T, man *m.Manifest) {
		t.Helper()
		for _, p := range man.Phases {
			for _, h := range p.Canaries {
				if h.Canary == name && h.How == "file-read" {
					return
				}
			}
		}
		t.Errorf("no traced read of %s", name)
	}
}

// TestBlindPersistenceByRename: a file written elsewhere and renamed or
// linked onto a startup file or AI client settings is judged by its
// destination, like a direct write.
func TestBlindPersistenceByRename(t *testing.T) {
	t.Parallel()
	runBlind(t, map[string]blindCase{
		"rename-bashrc":      {args: []string{"rename-onto=.bashrc"}, kind: policy.KindPersistence, sev: policy.Critical, subject: "~/.bashrc"},
		"write-bashrc":       {args: []string{"write-onto=.bashrc"}, kind: policy.KindPersistence, sev: policy.Critical, subject: "~/.bashrc"},
		"rename-authkeys":    {args: []string{"rename-onto=.ssh/authorized_keys"}, kind: policy.KindPersistence, sev: policy.Critical, subject: "~/.ssh/authorized_keys"},
		"write-authkeys":     {args: []string{"write-onto=.ssh/authorized_keys"}, kind: policy.KindPersistence, sev: policy.Critical, subject: "~/.ssh/authorized_keys"},
		"rename-autostart":   {args: []string{"rename-onto=.config/autostart/x.desktop"}, kind: policy.KindPersistence, sev: policy.Critical, subject: "~/.config/autostart"},
		"write-autostart":    {args: []string{"write-onto=.config/autostart/x.desktop"}, kind: policy.KindPersistence, sev: policy.Critical, subject: "~/.config/autostart"},
		"rename-claude":      {args: []string{"rename-onto=.claude/settings.json"}, kind: policy.KindCanary, sev: policy.Critical, subject: "file:~/.claude/settings.json"},
		"write-claude":       {args: []string{"write-onto=.claude/settings.json"}, kind: policy.KindCanary, sev: policy.Critical, subject: "file:~/.claude/settings.json"},
		"rename-claude-json": {args: []string{"rename-onto=.claude.json"}, kind: policy.KindAIConfig, sev: policy.Critical, subject: "~/.claude.json"},
		"write-claude-json":  {args: []string{"write-onto=.claude.json"}, kind: policy.KindAIConfig, sev: policy.Critical, subject: "~/.claude.json"},
		"link-bashrc":        {args: []string{"link-onto=.bashrc"}, kind: policy.KindPersistence, sev: policy.Critical, subject: "~/.bashrc"},
	})
}

// TestBlindProcAliases: a decoy read through /proc/self/root, cwd, fd or
// thread-self is a canary read, like the plain read.
func TestBlindProcAliases(t *testing.T) {
	t.Parallel()
	cases := map[string]blindCase{}
	for _, how := range []string{"plain", "root", "cwd", "fd", "thread"} {
		cases[how] = blindCase{args: []string{"read-via=" + how}, kind: policy.KindCanary, sev: policy.Critical,
			subject: "file:~/.ssh/id_rsa file-read", check: tracedRead("file:~/.ssh/id_rsa")}
	}
	runBlind(t, cases)
}

// TestBlindTracerDetection: reads that reveal the tracer through files
// other than /proc/self/status are anti-analysis findings too.
func TestBlindTracerDetection(t *testing.T) {
	t.Parallel()
	cases := map[string]blindCase{}
	for what, subject := range map[string]string{
		"self-status": "/proc/self/status", "thread-status": "/proc/thread-self/status",
		"parent-comm": "/proc/<pid>/comm", "parent-cmdline": "/proc/<pid>/cmdline",
		"parent-status": "/proc/<pid>/status", "init-cmdline": "/proc/1/cmdline",
	} {
		cases[what] = blindCase{args: []string{"peek=" + what}, kind: policy.KindAntiAnalysis, sev: policy.Medium, subject: subject, pass: true}
	}
	runBlind(t, cases)
}

// TestBlindSplitKey: a stolen key sent re-wrapped or JSON-escaped is a
// "sent" canary hit, like the key sent as read.
func TestBlindSplitKey(t *testing.T) {
	t.Parallel()
	cases := map[string]blindCase{}
	for _, how := range []string{"as-read", "wrapped", "json"} {
		cases[how] = blindCase{args: []string{"send-key=" + how}, kind: policy.KindCanary, sev: policy.Critical, subject: "file:~/.ssh/id_rsa sent"}
	}
	runBlind(t, cases)
}

// hasAlert demands an alert of a kind.
func hasAlert(kind string) func(t *testing.T, man *m.Manifest) {
	return func(t *testing.T, man *m.Manifest) {
		t.Helper()
		for _, p := range man.Phases {
			for _, a := range p.Alerts {
				if a.Kind == kind {
					return
				}
			}
		}
		t.Errorf("no %s alert", kind)
	}
}

// fixtureWithListener copies the fixture server and adds the listener
// helper, built here with gcc -static (the sandbox image has no compiler).
func fixtureWithListener(t *testing.T) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not found: the seccomp listener helper cannot be built")
	}
	dir := filepath.Join(t.TempDir(), "fixture-server")
	if err := os.CopyFS(dir, os.DirFS(fixture)); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("..", "..", "testdata", "fixtures", "listener", "listener.c")
	out, err := exec.Command(gcc, "-static", "-pthread", "-O1", "-o", filepath.Join(dir, "listener"), src).CombinedOutput()
	if err != nil {
		t.Skipf("building the listener helper (needs static libc): %v\n%s", err, out)
	}
	return dir
}

// TestBlindSeccompListener: a seccomp listener that would hide the server's
// opens from strace is refused (EPERM), so the open shows, and an O_NOATIME read of a
// decoy (which the access-time witness cannot see) is an alert; the read
// itself is a traced canary read, like the plain read.
func TestBlindSeccompListener(t *testing.T) {
	t.Parallel()
	dir := fixtureWithListener(t)
	both := func(checks ...func(*testing.T, *m.Manifest)) func(*testing.T, *m.Manifest) {
		return func(t *testing.T, man *m.Manifest) {
			for _, c := range checks {
				c(t, man)
			}
		}
	}
	read := func(target string, args string, checks ...func(*testing.T, *m.Manifest)) blindCase {
		return blindCase{target: target, args: []string{args}, kind: policy.KindCanary, sev: policy.Critical,
			subject: "file:~/.ssh/id_rsa file-read", check: both(append(checks, tracedRead("file:~/.ssh/id_rsa"))...)}
	}
	runBlind(t, map[string]blindCase{
		// The profile traps seccomp() with a listener (SIGSYS, which the
		// tracer prints): the helper dies before it can hide anything, and
		// the attempt is a seccomp_listener alert, high.
		"listener-hide": {target: dir, args: []string{"listener=hide"}, kind: policy.KindEscape, sev: policy.High,
			subject: m.AlertSeccompListener, check: hasAlert(m.AlertSeccompListener)},
		"listener-plain": read(dir, "listener=plain"),
		"noatime":        read("", "noatime-read", hasAlert(m.AlertNoAtime)),
		"plain":          read("", "read-via=plain"),
	})
}
