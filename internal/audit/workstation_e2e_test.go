package audit_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

var workstation = filepath.Join("..", "..", "testdata", "fixtures", "workstation")

// TestWorkstation: a server that uses the workstation as a developer's
// machine offers it (data beside its own code, git, python3, curl and a
// headless Chromium through the configured variable) gets every call
// answered, each program traced as a process, and the browser's own
// bookkeeping is no finding, nor is git committing the workspace with an
// identity of its own (its .env stored in the objects); writing into its
// own code is still a write to <pkg>, and writing its credentials, encoded,
// into .git itself is secret-derived. Without the writable package write_data fails, without the
// image's programs the others do, and without the browser's provenance
// its /proc reads are anti-analysis findings.
func TestWorkstation(t *testing.T) {
	t.Parallel()
	// Chromium's first start under the tracer takes seconds, and under
	// make test's load (four audits on two cores) more than the default
	// 10 s: this test is about what the calls reach, not how fast.
	man := run(t, audit.Options{Target: workstation, Differential: true, Timing: audit.TimingOptions{CallTimeout: 45 * time.Second}})
	if man.Outcome.Status != m.StatusOK {
		t.Fatalf("outcome %+v", man.Outcome)
	}
	for _, c := range man.Calls {
		if c.Outcome != m.CallOK {
			t.Errorf("call %s: %s %s", c.Name, c.Outcome, c.Detail)
		}
	}
	programs := map[string]string{"call:git_version": "/usr/bin/git", "call:python_eval": "/usr/bin/python3",
		"call:curl_version": "/usr/bin/curl", "call:browser_title": "/usr/lib/chromium/chromium"}
	for phase, prog := range programs {
		if !ranProgram(man, phase, prog) {
			t.Errorf("%s: %s not traced", phase, prog)
		}
	}
	if !wroteIn(man, "call:write_data", "<pkg>/data.json") {
		t.Errorf("the data file beside the code was not written as <pkg>/data.json")
	}
	fs := findings(man)
	if !hasFinding(fs, policy.KindWrite, policy.Low, "<pkg>/server.js") {
		t.Errorf("the write into its own code is no write finding on <pkg>/server.js: %+v", fs)
	}
	// git committing the workspace (its .env too) is the repository keeping
	// its work tree: no canary hit and no secret-derived output in .git;
	// the server writing its credentials there itself is one.
	stashed := false
	for _, f := range fs {
		inGit := strings.Contains(f.Subject+f.Evidence, "/.git/")
		if inGit && strings.Contains(f.Subject+f.Evidence, "/.git/objects/fe/") && f.Kind == policy.KindDerived && f.Severity >= policy.High {
			stashed = true
		} else if inGit && f.Severity >= policy.Medium {
			t.Errorf("git's own store of the workspace is a finding: %+v", f)
		}
		if strings.HasPrefix(f.Phase, "call:browser_title") && f.Severity >= policy.Medium ||
			f.Kind == policy.KindAntiAnalysis || f.Kind == policy.KindEscape {
			t.Errorf("the browser's own behaviour is a finding: %+v", f)
		}
	}
	if !stashed {
		t.Errorf("the server's own write of its credentials, encoded, into .git/objects is no high or critical secret-derived finding (high: the run read the user's files, so it may follow them): %+v", fs)
	}
}

// TestWritablePackageServerMemory: server-memory keeps its graph beside its
// dist/ unless told otherwise; under npx that works, and so it must here:
// every call answers (in a read-only package 12 of its calls failed).
func TestWritablePackageServerMemory(t *testing.T) {
	t.Parallel()
	man := run(t, audit.Options{Target: "npm:@modelcontextprotocol/server-memory@2026.8.31"})
	ok := 0
	for _, c := range man.Calls {
		if c.Outcome == m.CallOK {
			ok++
		} else {
			t.Errorf("call %s: %s %s", c.Name, c.Outcome, c.Detail)
		}
	}
	if ok == 0 || !wroteIn(man, "", "<pkg>/dist/memory.jsonl") {
		t.Errorf("%d calls ok; memory.jsonl written beside dist: %v", ok, wroteIn(man, "", "<pkg>/dist/memory.jsonl"))
	}
}

// TestBrowserServer audits a real browser server from the registry,
// @playwright/mcp (its default "chrome" channel is the image's Chromium),
// on calls that need no page: the browser starts under the sandbox's
// hardening, at least one call answers, and nothing the browser does by
// itself is a high finding, anti-analysis or an escape attempt.
func TestBrowserServer(t *testing.T) {
	t.Parallel()
	man := run(t, audit.Options{Target: "npm:@playwright/mcp@0.0.83", Tools: []string{"browser_tabs", "browser_snapshot", "browser_resize"}})
	ok := 0
	for _, c := range man.Calls {
		if c.Outcome == m.CallOK {
			ok++
		}
	}
	if ok == 0 {
		t.Errorf("no call answered: %+v", man.Calls)
	}
	if !ranProgram(man, "", "/usr/lib/chromium/chromium") {
		t.Error("the image's Chromium was not started")
	}
	for _, f := range findings(man) {
		if f.Severity >= policy.High || f.Kind == policy.KindAntiAnalysis || f.Kind == policy.KindEscape {
			t.Errorf("finding from the browser's own behaviour: %+v", f)
		}
	}
}

// TestBrowserActsOnThePage: a browser server navigates to a page the sink
// serves and acts on it as on a real site: going back runs after the
// calls that use the page (it is an ender), and the page has the elements
// the arguments name (a main region, a heading, a form). Before, every
// click, hover and type of @playwright/mcp failed: its navigate_back ran
// right after navigate and left the later calls on a blank page of a
// heading and a paragraph.
func TestBrowserActsOnThePage(t *testing.T) {
	t.Parallel()
	man := run(t, audit.Options{Target: "npm:@playwright/mcp@0.0.86",
		Tools: []string{"browser_navigate", "browser_navigate_back", "browser_click", "browser_hover", "browser_type"}})
	ok := map[string]bool{}
	for _, c := range man.Calls {
		if c.Outcome == m.CallOK {
			ok[c.Name] = true
		}
	}
	for _, name := range []string{"browser_navigate", "browser_click", "browser_hover", "browser_type"} {
		if !ok[name] {
			t.Errorf("%s never answered ok: %+v", name, man.Calls)
		}
	}
	for _, f := range findings(man) {
		if f.Severity >= policy.High || f.Kind == policy.KindAntiAnalysis || f.Kind == policy.KindEscape {
			t.Errorf("finding from the browser's own behaviour: %+v", f)
		}
	}
}

// ranProgram reports whether a phase (any phase when "") shows prog
// started successfully.
func ranProgram(man *m.Manifest, phase, prog string) bool {
	for _, p := range man.Phases {
		if phase != "" && !strings.HasPrefix(p.Name, phase) {
			continue
		}
		if slices.ContainsFunc(p.Processes, func(pr m.Process) bool { return pr.Path == prog && pr.Result == m.ResultOK }) {
			return true
		}
	}
	return false
}

// wrote reports whether a phase (any when "") shows a successful write or
// create of path, or a rename onto it.
func wroteIn(man *m.Manifest, phase, path string) bool {
	for _, p := range man.Phases {
		if phase != "" && !strings.HasPrefix(p.Name, phase) {
			continue
		}
		for _, f := range p.Files {
			if f.Path == path && f.Result == m.ResultOK && (f.Access == m.AccessWrite || f.Access == m.AccessCreate) {
				return true
			}
		}
	}
	return false
}
