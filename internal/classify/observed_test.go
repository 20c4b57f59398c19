package classify

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/trace"
)

// TestObservedPlaced: a record goes to the window holding its time (the
// first window for a time before any), a named one to its phase (made
// when no window has it), late alerts to the last window's phase, and the
// hits of a given credential are marked.
func TestObservedPlaced(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ws := []Window{{Name: "startup", Start: t0}, {Name: "call:a", Start: t0.Add(time.Second)}, {Name: "idle", Start: t0.Add(2 * time.Second)}}
	hit := func(c string) *m.CanaryHit { return &m.CanaryHit{Canary: c, How: m.HowStderr} }
	out := Classify(Input{Windows: ws, Given: []string{"GIVEN"}, LateAlerts: []m.Alert{{Kind: m.AlertTraceIncomplete, Detail: "late"}},
		Observed: []Observed{
			{Time: t0.Add(-time.Second), Canary: hit("env:EARLY")},
			{Time: t0.Add(1500 * time.Millisecond), Canary: hit("env:GIVEN")},
			{Time: t0.Add(5 * time.Second), Message: &m.ServerMessage{Channel: m.ChannelStderr, Text: "x"}},
			{Phase: "call:b", Canary: hit("env:NAMED")},
		}})
	got := map[string][]string{}
	for _, p := range out.Phases {
		for _, h := range p.Canaries {
			g := ""
			if h.Given {
				g = " given"
			}
			got[p.Name] = append(got[p.Name], h.Canary+g)
		}
		for _, msg := range p.Messages {
			got[p.Name] = append(got[p.Name], "message "+msg.Text)
		}
		for _, a := range p.Alerts {
			got[p.Name] = append(got[p.Name], "alert "+a.Detail)
		}
	}
	want := map[string][]string{"startup": {"env:EARLY"}, "call:a": {"env:GIVEN given"}, "idle": {"message x", "alert late"}, "call:b": {"env:NAMED"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("placed (-want +got):\n%s", d)
	}
}

// TestInstrumentsAreNotBehavior: node writing its V8 coverage into the
// instrument's directory is not the server's behavior; a rename out of it
// onto a dotfile is.
func TestInstrumentsAreNotBehavior(t *testing.T) {
	tr, err := trace.Parse(strings.NewReader(`100 1700000000.000001 openat(AT_FDCWD</srv>, "/tmp/.node-coverage/coverage-100-1-0.json", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 20</tmp/.node-coverage/coverage-100-1-0.json>
100 1700000000.000002 rename("/tmp/.node-coverage/x.json", "/home/dev/.bashrc") = 0
`), trace.Limits{})
	if err != nil || len(tr.Events) != 2 {
		t.Fatalf("trace %+v %v", tr, err)
	}
	l := Layout{Home: "/home/dev", Workspace: "/home/dev/workspace", Instruments: []string{"/tmp/.node-coverage"}}
	out := Classify(Input{Layout: l, Events: tr.Events})
	var paths []string
	for _, p := range out.Phases {
		for _, f := range p.Files {
			paths = append(paths, f.Path)
		}
	}
	if len(paths) == 0 || slices.ContainsFunc(paths, func(p string) bool { return strings.Contains(p, ".node-coverage/coverage") }) ||
		!slices.Contains(paths, "~/.bashrc") {
		t.Errorf("files %v", paths)
	}
}
