package audit_test

import (
	"archive/tar"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/canary"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

var effectFixture = filepath.Join("..", "..", "testdata", "fixtures", "effect-server")

// effectSeed is a small, realistic project seeded beside the canary
// set's workspace (whatever the decoy workspace holds, the fixture finds
// the files by walking it).
var effectSeed = []canary.File{
	{Path: "<workspace>/lib/scheduler.js", Mode: 0o644, Content: []byte("import { plan } from './queue.js';\n\nexport function main() {\n  return plan('release', 3);\n}\n")},
	{Path: "<workspace>/lib/queue.js", Mode: 0o644, Content: []byte("export function plan(name, weeks) {\n  return `${name} in ${weeks} weeks`;\n}\n")},
	{Path: "<workspace>/docs/design-notes.md", Mode: 0o644, Content: []byte("# Design\n\nThe scheduler keeps one queue per tenant and drains them in turn.\n")},
	{Path: "<workspace>/todo.md", Mode: 0o644, Content: []byte("- call the bank about the mortgage\n- renew the passport\n")},
}

func runEffect(t *testing.T, mode string) *m.Manifest {
	t.Helper()
	return run(t, audit.Options{Target: effectFixture, Args: []string{mode}, Sandbox: audit.SandboxOptions{Seed: effectSeed}})
}

// findingsOf are the findings of kind at sev or above.
func findingsOf(man *m.Manifest, kind string, sev policy.Severity) []policy.Finding {
	var out []policy.Finding
	for _, f := range findings(man) {
		if f.Kind == kind && f.Severity >= sev {
			out = append(out, f)
		}
	}
	return out
}

// TestDestroyedUserData: a read-only tool that encrypts and deletes the
// workspace's files, cuts one, or rewrites one with random bytes, and an
// honest tool that deletes three files its call did not name, fail; a
// tool whose call names the file it deletes (the control) passes, though
// the deletion is on record.
func TestDestroyedUserData(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode     string
		data     policy.Severity // the least severity of the user-data findings wanted; -1 none at medium or above
		contract bool            // a readOnlyHint contract finding
	}{
		{"encrypt", policy.High, true},
		{"truncate", policy.Medium, true},
		{"overwrite", policy.High, true},
		{"delete3", policy.High, false},
		{"delete-named", -1, false},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			man := runEffect(t, tc.mode)
			var destroyed []m.DestroyedFile
			for _, p := range man.Phases {
				destroyed = append(destroyed, p.Destroyed...)
			}
			if len(destroyed) == 0 {
				t.Fatalf("nothing destroyed on record; calls %+v", man.Calls)
			}
			data := findingsOf(man, policy.KindDestroyed, policy.Medium)
			switch {
			case tc.data < 0 && len(data) > 0:
				t.Errorf("the control has user-data findings %+v", data)
			case tc.data >= 0 && len(findingsOf(man, policy.KindDestroyed, tc.data)) == 0:
				t.Errorf("user-data findings %+v, want one at %s or above; destroyed %+v", data, tc.data, destroyed)
			case tc.mode == "delete3" && len(findingsOf(man, policy.KindDestroyed, policy.High)) < 3:
				t.Errorf("three files deleted in a call, but not three high findings: %+v", data)
			}
			if got := hasFinding(findings(man), policy.KindContract, policy.High, "summarize readOnlyHint"); got != tc.contract {
				t.Errorf("readOnlyHint contract finding %v, want %v", got, tc.contract)
			}
			want := m.VerdictFail
			if tc.data < 0 {
				want = m.VerdictPass
			}
			if r := judgeDefault(man); r.Verdict != want {
				t.Errorf("verdict %s, want %s; findings %+v", r.Verdict, want, r.Findings)
			}
		})
	}
}

// hasConn: some phase lists a connection of the category to the address.
func hasConn(man *m.Manifest, category, address string) bool {
	for _, ph := range man.Phases {
		for _, c := range ph.Network {
			if c.Category == category && c.Address == address {
				return true
			}
		}
	}
	return false
}

// TestClosedWorldContract: a tool annotated openWorldHint: false whose
// call posts to a host, or sends it a datagram, fails; the same call from
// a tool that says it may reach out (the control) passes, and so does one
// that only connects a datagram socket where no route goes, sending
// nothing (Chromium's IPv6 reachability check under desktop-commander's
// write_pdf).
func TestClosedWorldContract(t *testing.T) {
	t.Parallel()
	for mode, want := range map[string]string{"closed-net": m.VerdictFail, "open-net": m.VerdictPass, "closed-udp": m.VerdictFail, "route-probe": m.VerdictPass} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			man := runEffect(t, mode)
			got := hasFinding(findings(man), policy.KindContract, policy.High, "lookup openWorldHint")
			if got != (want == m.VerdictFail) {
				t.Errorf("openWorldHint contract finding %v; findings %+v", got, findings(man))
			}
			if r := judgeDefault(man); r.Verdict != want {
				t.Errorf("verdict %s, want %s; findings %+v", r.Verdict, want, r.Findings)
			}
			if mode == "route-probe" && !hasConn(man, m.ConnNoRoute, "2001:db8::53") {
				t.Errorf("the route probe is not in the manifest: %+v", man.Phases)
			}
		})
	}
}

// TestPersistenceByPlace: writes into an editor's plugin directory, a
// desktop handler and another program's rc file, none in the persistence
// table, are high persistence; the server's own data directory (the
// control) is not, even where its shape is a plugin or bin directory.
func TestPersistenceByPlace(t *testing.T) {
	t.Parallel()
	for mode, path := range map[string]string{
		"persist=plugins": "~/.config/fooedit/plugins/helper.js",
		"persist=desktop": "~/.local/share/applications/open-link.desktop",
		"persist=rc":      "~/.config/barterm/bartermrc",
		"own-data":        "",
	} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			man := runEffect(t, mode)
			r := judgeDefault(man)
			if path == "" {
				if got := findingsOf(man, policy.KindPersistence, policy.Medium); len(got) > 0 || r.Verdict != m.VerdictPass {
					t.Errorf("own data: verdict %s, persistence %+v", r.Verdict, got)
				}
				if st := man.PhaseByName(m.PhaseStartup); st == nil || !wrote(st, "~/.config/effect-server/plugins/cache.js") {
					t.Errorf("the control's own data write is not on record")
				}
				return
			}
			if !hasFinding(findings(man), policy.KindPersistence, policy.High, path) || r.Verdict != m.VerdictFail {
				t.Errorf("verdict %s; want a high persistence finding for %s in %+v", r.Verdict, path, findings(man))
			}
		})
	}
}

func wrote(p *m.Phase, path string) bool {
	for _, f := range p.Files {
		if f.Path == path && (f.Access == m.AccessWrite || f.Access == m.AccessCreate) {
			return true
		}
	}
	return false
}

// TestListenersProbed: a credential served on 127.0.0.1 with
// Access-Control-Allow-Origin: * is critical and high; a reflected origin
// alone is high; a credential without CORS is critical; the same listener
// serving "ok" without either (the control) passes, and what was probed
// is on record in every case.
func TestListenersProbed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode         string
		served, cors bool
	}{
		{"cors-cred", true, true},
		{"cors-reflect", false, true},
		{"serve-cred", true, false},
		{"listen-plain", false, false},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			man := runEffect(t, tc.mode)
			idle := man.PhaseByName(m.PhaseIdle)
			if idle == nil || len(idle.Probes) == 0 {
				t.Fatalf("nothing probed; notes %v", man.Run.Notes)
			}
			for _, p := range idle.Probes {
				if p.Port == 38080 && p.Request == "GET /" && p.Status != 200 {
					t.Errorf("probe %+v", p)
				}
			}
			served := false
			for _, f := range findingsOf(man, policy.KindCanary, policy.Critical) {
				served = served || strings.HasSuffix(f.Subject, " "+m.HowServed)
			}
			cors := hasFinding(findings(man), policy.KindListener, policy.High, "127.0.0.1:38080 CORS")
			if served != tc.served || cors != tc.cors {
				t.Errorf("served %v (want %v), cors %v (want %v); findings %+v", served, tc.served, cors, tc.cors, findings(man))
			}
			want := m.VerdictFail
			if !tc.served && !tc.cors {
				want = m.VerdictPass
			}
			if r := judgeDefault(man); r.Verdict != want {
				t.Errorf("verdict %s, want %s", r.Verdict, want)
			}
		})
	}
}

// effectTarball packs the fixture with an install script.
func effectTarball(t *testing.T, name, install string) string {
	t.Helper()
	tgz := filepath.Join(t.TempDir(), name+"-1.0.0.tgz")
	f, err := os.Create(tgz)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	files := map[string]string{"package/package.json": `{"name":"` + name + `","version":"1.0.0","bin":{"` + name + `":"server.js"},"scripts":{"install":` + install + `}}`}
	for _, n := range []string{"server.js", "build.js", "fetch.js"} {
		b, err := os.ReadFile(filepath.Join(effectFixture, n))
		if err != nil {
			t.Fatal(err)
		}
		files["package/"+n] = string(b)
	}
	for n, body := range files {
		tw.WriteHeader(&tar.Header{Name: n, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	f.Close()
	return tgz
}

// TestLifecycleShell: the shell npm starts for a native build's install
// script (`node build.js || echo skipped`, as `prebuild-install ||
// node-gyp rebuild`) is the install-script finding, not a shell; a shell
// the install script starts that reaches the network is a high shell
// finding, though it has the very form npm gives its own.
func TestLifecycleShell(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, install string
		shell         bool
	}{
		{"effect-build", `"node build.js || echo skipped"`, false},
		{"effect-fetch", `"sh -c 'node fetch.js'"`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			man := run(t, audit.Options{Target: effectTarball(t, tc.name, tc.install), Args: []string{"plain"}, Calls: audit.CallsNone})
			in := man.PhaseByName(m.PhaseInstall)
			if in == nil {
				t.Fatalf("no install phase; notes %v", man.Run.Notes)
			}
			marked := false
			for _, p := range in.Processes {
				marked = marked || p.Lifecycle && p.Shell
			}
			fs := findings(man)
			shell := hasFinding(fs, policy.KindShell, policy.High, "sh")
			if !marked || !hasFinding(fs, policy.KindInstallScript, policy.Low, "") || shell != tc.shell {
				t.Errorf("lifecycle shell marked %v, high shell finding %v (want %v); processes %+v; findings %+v", marked, shell, tc.shell, in.Processes, fs)
			}
			if !tc.shell && len(findingsOf(man, policy.KindShell, policy.Low)) > 0 {
				t.Errorf("the native build is a shell finding: %+v", findingsOf(man, policy.KindShell, policy.Low))
			}
		})
	}
}
