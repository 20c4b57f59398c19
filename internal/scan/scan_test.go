package scan

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/clientconfig"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/remote/remotefake"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// Secrets written in the fixture files: none may reach an audit, a
// report, the remote server or the written mcp-audit.yml.
var secrets = []string{"ghp_0000000000000000000000000000000000fake", "live-token-0000fake", "hunter2-0000fake"}

// machine is a home with two local servers and the client files of
// Claude Code (project .mcp.json), Cursor (user, with a comment it does
// not accept) and VS Code (project, malformed), and a remote fixture.
type machine struct {
	env      clientconfig.Env
	remote   *remotefake.Server
	vscode   string
	goodDir  string
	badDir   string
	mu       sync.Mutex
	audited  map[string]audit.Options
	manifest map[string]*m.Manifest
}

func newMachine(t *testing.T, malformed bool) *machine {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	mc := &machine{env: clientconfig.Env{Home: home, Dir: filepath.Join(home, "proj"), OS: "linux"},
		remote: remotefake.Start(remotefake.Inject), audited: map[string]audit.Options{}}
	t.Cleanup(mc.remote.Close)
	mc.goodDir, mc.badDir = filepath.Join(home, "src", "good"), filepath.Join(home, "src", "bad")
	files := map[string]string{
		"src/good/package.json": `{"name": "good-server", "version": "1.0.0"}`, "src/good/index.js": "",
		"src/bad/package.json": `{"name": "bad-server", "version": "2.0.0"}`, "src/bad/index.js": "",
		"proj/.mcp.json": `{
  "mcpServers": {
    "good": {"command": "node", "args": ["HOME/src/good/index.js", "--data", "HOME/proj/data"],
      "env": {"GITHUB_TOKEN": "ghp_0000000000000000000000000000000000fake", "LOG_LEVEL": "debug"}},
    "bad": {"command": "node", "args": ["HOME/src/bad/index.js"]},
    "docs": {"type": "http", "url": "REMOTE", "headers": {"Authorization": "Bearer live-token-0000fake"}},
    "weird": {"command": "bash", "args": ["-c", "curl -s https://get.example/i.sh | sh"]}
  }
}`,
		".cursor/mcp.json": `{
  // Cursor's reader is strict: this comment gets a warning
  "mcpServers": {
    "good-too": {"command": "node", "args": ["HOME/src/good/index.js", "--data", "HOME/proj/data"],
      "env": {"DB_PASSWORD": "hunter2-0000fake"}},
  }
}`,
	}
	if malformed {
		files["proj/.vscode/mcp.json"] = "{\n  \"servers\": {\n    \"x\": {\"command\": \"npx\" \"args\": [\"-y\", \"x-mcp@1.0.0\"]}\n  }\n}\n"
	}
	for name, body := range files {
		p := filepath.Join(home, name)
		body = strings.ReplaceAll(strings.ReplaceAll(body, "HOME", home), "REMOTE", mc.remote.HTTPURL())
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mc.vscode = filepath.Join(home, "proj", ".vscode", "mcp.json")
	mc.manifest = map[string]*m.Manifest{
		mc.goodDir: study(t, "@modelcontextprotocol/server-memory/2026.8.31.json", "good-server", "1.0.0"),
		mc.badDir:  study(t, "chrome-devtools-mcp/1.11.0.json", "bad-server", "2.0.0"),
	}
	return mc
}

// study is a recorded manifest of the study, renamed as a local package.
func study(t *testing.T, file, name, version string) *m.Manifest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "policy", "testdata", "study", "npm", filepath.FromSlash(file)))
	if err != nil {
		t.Fatal(err)
	}
	man, err := m.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	man.Target.Ecosystem, man.Target.Name, man.Target.Version = "local", name, version
	return man
}

// audit stands in for the sandbox: it returns the recorded manifest of
// the target and keeps what it was asked.
func (mc *machine) audit(ctx context.Context, d audit.Deps, o audit.Options, runs int) (*audit.Result, error) {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	mc.audited[o.Target] = o
	man := mc.manifest[o.Target]
	if man == nil {
		return nil, fmt.Errorf("%w: no manifest for %s", audit.ErrRuntime, o.Target)
	}
	b, _ := m.Encode(man)
	cp, _ := m.Decode(b)
	return &audit.Result{Manifest: cp}, nil
}

func (mc *machine) scan(t *testing.T, remote bool) (*Result, Options) {
	t.Helper()
	o := Options{Env: mc.env, Remote: remote, RemoteLoopback: true, Out: t.TempDir(), Jobs: 2, Runs: 1, Audit: mc.audit}
	p, err := NewPlan(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), audit.Deps{}, p, o)
	if err != nil {
		t.Fatal(err)
	}
	return res, o
}

func byName(rs []report.DiffReport) map[string]report.DiffReport {
	out := map[string]report.DiffReport{}
	for _, r := range rs {
		out[r.Server] = r
	}
	return out
}

func verdictOf(r report.DiffReport) string {
	if r.Result == nil {
		return "not audited"
	}
	return r.Result.Verdict
}

// TestScan: every server of every file is reported once: the local ones
// audited (one passes, one fails), the remote one surface only, the shell
// line not audited; the malformed file is named with its line and the
// scan exits 2, then 1 without it. The canaries planted are the names
// configured, and no value of the files reaches the audit, the reports or
// the remote server.
func TestScan(t *testing.T) {
	mc := newMachine(t, true)
	res, o := mc.scan(t, true)
	got := map[string]string{}
	for name, r := range byName(res.Reports) {
		got[name] = verdictOf(r)
	}
	want := map[string]string{"good": m.VerdictPass, "bad": m.VerdictFail, "docs": m.VerdictFail, "weird": "not audited"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	if len(mc.audited) != 2 {
		t.Errorf("%d audits, want 2 (the good server is configured twice)", len(mc.audited))
	}
	good := mc.audited[mc.goodDir]
	if !cmp.Equal(good.CanaryEnv, []string{"DB_PASSWORD", "GITHUB_TOKEN", "LOG_LEVEL"}) || len(good.Env) != 0 ||
		!cmp.Equal(good.Args, []string{"--data", "{workspace}/data"}) {
		t.Errorf("the good server's audit: canary_env %v, env %v, args %v", good.CanaryEnv, good.Env, good.Args)
	}
	reports := byName(res.Reports)
	if !reports["docs"].SurfaceOnly || reports["good"].SurfaceOnly {
		t.Error("only the remote server is surface only")
	}
	notes := strings.Join(reports["good"].Notes, "\n")
	for _, w := range []string{"configured in Claude Code: ~/proj/.mcp.json:3", "configured in Cursor: ~/.cursor/mcp.json:4",
		"warning (secret-in-clear): ~/proj/.mcp.json:4", "warning (client-syntax): ~/.cursor/mcp.json:2"} {
		if !strings.Contains(notes, w) {
			t.Errorf("the good server's notes lack %q:\n%s", w, notes)
		}
	}
	docs := byName(res.Reports)["docs"]
	if !slices.ContainsFunc(docs.Notes, func(n string) bool { return strings.HasPrefix(n, "surface pinned: 2 tools, digest sha256:") }) {
		t.Errorf("the remote server's tools are not pinned in its report: %v", docs.Notes)
	}
	if kept, _ := filepath.Glob(filepath.Join(o.Out, "manifests", "remote", "*", "2.1.0.json")); len(kept) != 1 {
		t.Errorf("the remote server's surface manifest is not kept: %v", kept)
	}
	if len(res.Plan.Scan.Problems) != 1 || res.Plan.Scan.Problems[0].Path != mc.vscode || res.Plan.Scan.Problems[0].Line != 3 {
		t.Errorf("problems %+v, want the VS Code file at line 3", res.Plan.Scan.Problems)
	}
	if err := Outcome(res.Plan.Scan.Problems, res.Reports, false); !errors.Is(err, ErrUnreadable) || !errors.Is(err, verdict.ErrUsage) {
		t.Errorf("outcome %v, want unreadable", err)
	}
	if err := Outcome(nil, res.Reports, false); !errors.Is(err, verdict.ErrFindings) {
		t.Errorf("outcome %v, want findings", err)
	}
	mc.noSecrets(t, res, o)
}

// noSecrets: no value written in the client files left them.
func (mc *machine) noSecrets(t *testing.T, res *Result, o Options) {
	t.Helper()
	var b strings.Builder
	for _, f := range []string{report.FormatJSON, report.FormatText, report.FormatMarkdown, report.FormatHTML} {
		report.WriteDiffs(&b, f, res.Reports)
	}
	fmt.Fprintf(&b, "%+v", mc.audited)
	yml, _ := os.ReadFile(filepath.Join(o.Out, "mcp-audit.yml"))
	b.Write(yml)
	for _, s := range secrets {
		if strings.Contains(b.String(), s) {
			t.Errorf("%s left the client files", s)
		}
		if mc.remote.Received(s) {
			t.Errorf("the remote server received %s", s)
		}
	}
	if mc.remote.Received("Bearer") || slices.Contains(mc.remote.Methods(), "tools/call") {
		t.Errorf("the remote server got a credential or a call: %v", mc.remote.Methods())
	}
}

// TestScanWithoutRemote: without --remote the remote server is not
// contacted and is not audited (exit 4 once the failing one is fixed).
func TestScanWithoutRemote(t *testing.T) {
	mc := newMachine(t, false)
	mc.manifest[mc.badDir] = mc.manifest[mc.goodDir]
	res, _ := mc.scan(t, false)
	r := byName(res.Reports)["docs"]
	if r.Result != nil || !strings.Contains(r.Error, "--remote") || len(mc.remote.Requests()) != 0 {
		t.Errorf("docs: %+v; the remote server got %d requests", r, len(mc.remote.Requests()))
	}
	if err := Outcome(nil, res.Reports, false); !errors.Is(err, verdict.ErrIncomplete) {
		t.Errorf("outcome %v, want incomplete", err)
	}
	if err := Outcome(nil, res.Reports, true); err != nil {
		t.Errorf("outcome with allow-incomplete %v, want nil", err)
	}
}

// TestUnknownPackage: a package the registry does not have is warned
// about in its server's report notes; one it has is not (the control).
func TestUnknownPackage(t *testing.T) {
	home := t.TempDir()
	p := filepath.Join(home, ".cursor", "mcp.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(`{"mcpServers": {
  "real": {"command": "npx", "args": ["-y", "real-mcp@1.0.0"]},
  "squat": {"command": "npx", "args": ["-y", "squatted-mcp@1.0.0"]}}}`), 0o644)
	var asked []string
	exists := func(ctx context.Context, kind, name string) (bool, error) {
		asked = append(asked, kind+":"+name)
		return name == "real-mcp", nil
	}
	plan, err := NewPlan(context.Background(), Options{Env: clientconfig.Env{Home: home, OS: "linux"}, Out: t.TempDir(), Exists: exists})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range plan.Scan.Servers {
		ns := strings.Join(notes(plan.Scan, s, home), "\n")
		if got := strings.Contains(ns, "warning (unknown-package): ~/.cursor/mcp.json:3: the npm registry has no package squatted-mcp"); got != (s.Name == "squat") {
			t.Errorf("%s: unknown-package warned %v:\n%s", s.Name, got, ns)
		}
	}
	if !cmp.Equal(asked, []string{"npm:real-mcp", "npm:squatted-mcp"}) {
		t.Errorf("asked %v", asked)
	}
}
