package batch

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/config"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// studyManifests are the 40 study servers' recorded manifests, by pinned
// npm spec.
func studyManifests(t *testing.T) map[string]*m.Manifest {
	t.Helper()
	out := map[string]*m.Manifest{}
	root := filepath.Join("..", "policy", "testdata", "study")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		man, err := m.Decode(data)
		if err != nil {
			return err
		}
		out["npm:"+man.Target.Name+"@"+man.Target.Version] = man
		return nil
	})
	if err != nil || len(out) != 40 {
		t.Fatalf("study manifests: %d, %v", len(out), err)
	}
	return out
}

// TestBatchOnRecordedManifests runs the whole batch — selection, parallel
// workers, records, RESULTS.md and the report — with the audit replaced
// by the 40 study manifests: the verdicts are the pinned ones (three
// fail), every server has a record, and the audit got the pinned target.
func TestBatchOnRecordedManifests(t *testing.T) {
	mans := studyManifests(t)
	var list strings.Builder
	list.WriteString("servers:\n")
	i := 0
	var specs []string
	for spec := range mans {
		specs = append(specs, spec)
	}
	slices.Sort(specs)
	for _, spec := range specs {
		man := mans[spec]
		fmt.Fprintf(&list, "  s%02d:\n    target: npm:%s\n    version: %s\n", i, man.Target.Name, man.Target.Version)
		i++
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "servers.yml")
	os.WriteFile(p, []byte(list.String()), 0o644)
	cfg, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var asked []string
	fake := func(ctx context.Context, d audit.Deps, o audit.Options, runs int) (*audit.Result, error) {
		mu.Lock()
		asked = append(asked, o.Target)
		mu.Unlock()
		man, ok := mans[o.Target]
		if !ok {
			return nil, fmt.Errorf("%w: no recorded manifest for %s", audit.ErrRuntime, o.Target)
		}
		b, _ := m.Encode(man)
		cp, _ := m.Decode(b)
		return &audit.Result{Manifest: cp}, nil
	}
	out := filepath.Join(dir, "results")
	sum, err := Run(context.Background(), audit.Deps{}, Options{List: cfg, Out: out, Jobs: 4, Audit: fake})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Done != 40 || sum.Failed != 0 || len(asked) != 40 {
		t.Fatalf("summary %+v, asked %d", sum, len(asked))
	}
	var failing []string
	for i := range 40 {
		r, err := readRecord(out, fmt.Sprintf("s%02d", i))
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict == "fail" {
			failing = append(failing, r.Name)
		}
	}
	slices.Sort(failing)
	want := []string{"@modelcontextprotocol/server-everything", "@wonderwhy-er/desktop-commander", "chrome-devtools-mcp"}
	if !slices.Equal(failing, want) {
		t.Errorf("failing %v, want %v (study.golden)", failing, want)
	}
	results, err := os.ReadFile(filepath.Join(out, "RESULTS.md"))
	if err != nil || !strings.Contains(string(results), "chrome-devtools-mcp") {
		t.Errorf("RESULTS.md: %v", err)
	}
}
