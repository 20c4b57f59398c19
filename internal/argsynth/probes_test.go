package argsynth

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcp-audit/mcp-audit/internal/canary"
)

// probeOf is the probe set's probe for one parameter.
func probeOf(t *testing.T, tool Tool, param string) (Probe, bool) {
	t.Helper()
	s, ok := PlanSet(tool, ReasonProbe, nil)
	if !ok {
		return Probe{}, false
	}
	if !s.Valid {
		t.Errorf("%s: probe set does not validate: %s", tool.Name, s.Args)
	}
	for _, p := range s.Probes {
		if p.Param == param {
			if v := getAt(decodeArgs(s.Args), splitPointer(p.Pointer)); v != p.Value {
				t.Errorf("%s: the set carries %v at %s, not the probe %q", tool.Name, v, p.Pointer, p.Value)
			}
			return p, true
		}
	}
	return Probe{}, false
}

var reFactors = regexp.MustCompile(`(\d{8})\D+7919|7919\D+(\d{8})\]`)

// TestProbes: each kind of parameter gets the probe of its kind, whose
// marker no input contains.
func TestProbes(t *testing.T) {
	for name, tc := range map[string]struct {
		tool  Tool
		param string
		kind  ProbeKind
		value string // a prefix
		where Evidence
		decl  bool
	}{
		"javascript code":  {Tool{Name: "run-code", InputSchema: obj(`"code":{"type":"string"},"languageId":{"enum":["javascript","python"]}`, "code", "languageId")}, "code", ProbeExpression, "console.log([7919, ", InResult, true},
		"python code":      {Tool{Name: "run-code", InputSchema: obj(`"code":{"type":"string"},"languageId":{"enum":["python","javascript"]}`, "code", "languageId")}, "code", ProbeExpression, "print([7919, ", InResult, true},
		"browser function": {Tool{Name: "browser_evaluate", InputSchema: obj(`"function":{"type":"string","description":"() => { /* code */ }"}`, "function")}, "function", ProbeExpression, "() => [7919, ", InResult, true},
		"shell command":    {Tool{Name: "execute_command", Description: "Run a command in a shell", InputSchema: obj(`"command":{"type":"string"}`, "command")}, "command", ProbeExpression, "echo $((", InResult, true},
		"sql":              {Tool{Name: "query", InputSchema: obj(`"sql":{"type":"string"}`, "sql")}, "sql", ProbeExpression, "SELECT ", InResult, true},
		"template":         {Tool{Name: "render", InputSchema: obj(`"template":{"type":"string"}`, "template")}, "template", ProbeTemplate, "Total: {{", InResult, true},
		"path":             {Tool{Name: "read_file", InputSchema: obj(`"path":{"type":"string"}`, "path")}, "path", ProbePath, MarkerPath, FileOpened, true},
		"url":              {Tool{Name: "fetch", InputSchema: obj(`"url":{"type":"string","format":"uri"}`, "url")}, "url", ProbeURL, "https://kb-", HostLooked, true},
		"free text":        {Tool{Name: "summarize", InputSchema: obj(`"text":{"type":"string"}`, "text")}, "text", ProbeExpression, "[7919, ", InResult, false},
	} {
		t.Run(name, func(t *testing.T) {
			p, ok := probeOf(t, tc.tool, tc.param)
			if !ok {
				t.Fatalf("no probe for %s", tc.param)
			}
			if p.Kind != tc.kind || !strings.HasPrefix(p.Value, tc.value) || p.Markers[0].Where != tc.where || p.Declared != tc.decl {
				t.Errorf("got %+v", p)
			}
			for _, m := range p.Markers {
				if m.Where == InResult && strings.Contains(p.Value, m.Value) && m.Value != MarkerToken {
					t.Errorf("the input %q contains its own marker %q", p.Value, m.Value)
				}
			}
			if p.Kind == ProbeExpression || p.Kind == ProbeTemplate {
				f := reFactors.FindStringSubmatch(p.Value)
				if f == nil {
					t.Fatalf("no factor in %q", p.Value)
				}
				a, _ := strconv.Atoi(f[1] + f[2])
				if p.Markers[0].Value != strconv.Itoa(a*factor) {
					t.Errorf("marker %s is not %d×%d", p.Markers[0].Value, a, factor)
				}
			}
			again, _ := probeOf(t, tc.tool, tc.param)
			if diff := cmp.Diff(p, again); diff != "" {
				t.Errorf("not deterministic:\n%s", diff)
			}
		})
	}
}

// TestProbesLeaveWhatTheyMustNotTouch: a tool that moves, writes or
// deletes gets no path probe (it would change the marker file), an API
// path is not a file, nothing enumerated or constant is probed, and a
// set probes at most one path parameter.
func TestProbesLeaveWhatTheyMustNotTouch(t *testing.T) {
	for name, tc := range map[string]struct {
		tool  Tool
		param string
	}{
		"mover":    {Tool{Name: "move_file", InputSchema: obj(`"source":{"type":"string"},"destination":{"type":"string"}`, "source", "destination")}, "source"},
		"deleter":  {Tool{Name: "delete_file", InputSchema: obj(`"path":{"type":"string"}`, "path")}, "path"},
		"api path": {Tool{Name: "jira_get", InputSchema: obj(`"path":{"type":"string","description":"The Jira API endpoint path"}`, "path")}, "path"},
		"enum":     {Tool{Name: "render", InputSchema: obj(`"template":{"enum":["a","b"]}`, "template")}, "template"},
	} {
		if p, ok := probeOf(t, tc.tool, tc.param); ok {
			t.Errorf("%s: probed %+v", name, p)
		}
	}
	two := Tool{Name: "diff_files", InputSchema: obj(`"left":{"type":"string","description":"path to the first file"},"right":{"type":"string","description":"path to the second file"}`, "left", "right")}
	s, _ := PlanSet(two, ReasonProbe, nil)
	if n := strings.Count(string(s.Args), MarkerPath); n != 1 {
		t.Errorf("%d path probes in one set: %s", n, s.Args)
	}
}

// TestProbesAreSafe: every probe touches only its own marker: no tell,
// no canary name, a file inside the workspace, a host under ProbeDomain
// and never under the canaries' private domain, distinct markers per
// parameter.
func TestProbesAreSafe(t *testing.T) {
	if strings.HasSuffix(ProbeDomain, canary.PrivateDomain) || strings.HasSuffix(canary.PrivateDomain, ProbeDomain) {
		t.Errorf("probe domain %s overlaps the canaries' %s", ProbeDomain, canary.PrivateDomain)
	}
	if !strings.HasPrefix(MarkerPath, Workspace+"/") || sensitive(MarkerPath) || strings.Contains(MarkerPath, canary.WorkspaceEnv[len("<workspace>"):]) {
		t.Errorf("marker path %s", MarkerPath)
	}
}

// checkStudyProbes checks one study server's probes (TestStudyPlans
// calls it with each server's plans): no tell, hosts under ProbeDomain,
// the one marker file, every other marker the server's own.
func checkStudyProbes(t *testing.T, server string, probes map[string][]Probe) int {
	t.Helper()
	n := 0
	seen := map[string]string{}
	for _, tool := range sortedKeys(probes) {
		for _, p := range probes[tool] {
			for _, bad := range tells {
				if strings.Contains(strings.ToLower(p.Value), bad) {
					t.Errorf("%s %s %s: probe %q contains %q", server, tool, p.Param, p.Value, bad)
				}
			}
			for _, m := range p.Markers {
				switch m.Where {
				case HostLooked:
					if !strings.HasSuffix(m.Value, "."+ProbeDomain) {
						t.Errorf("host %s", m.Value)
					}
				case FileOpened:
					if m.Value != MarkerPath {
						t.Errorf("file %s", m.Value)
					}
				}
				if m.Where != FileOpened && m.Value != MarkerToken {
					if o, dup := seen[m.Value]; dup {
						t.Errorf("%s: marker %s of %s/%s is also %s's", server, m.Value, tool, p.Param, o)
					}
					seen[m.Value] = tool + "/" + p.Param
					n++
				}
			}
		}
	}
	return n
}
