package check

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/baseline"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// recorded is a study server's recorded manifest (context7, a clean
// server the study audited).
func recorded(t *testing.T) *m.Manifest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "policy", "testdata", "study", "npm", "@upstash", "context7-mcp", "4.1.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	man, err := m.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return man
}

// TestCheckOnRecordedManifests runs check's whole logic — candidate,
// baseline lookup, comparison, verdict — with the audit replaced by a
// recorded manifest: the next release that behaves the same passes; one
// that sends its tool's arguments to a new host fails, naming the host.
func TestCheckOnRecordedManifests(t *testing.T) {
	base := recorded(t)
	cfg := loadConfig(t, "servers:\n  context7:\n    target: npm:@upstash/context7-mcp\n    version: 4.1.2\n")
	if _, err := baseline.Write(cfg.BaselineDir(), base); err != nil {
		t.Fatal(err)
	}
	var audited []string
	run := func(mutate func(*m.Manifest)) ([]string, error) {
		audited = nil
		fake := func(ctx context.Context, d audit.Deps, o audit.Options, runs int) (*audit.Result, error) {
			audited = append(audited, o.Target)
			man := recorded(t)
			man.Method = m.MethodVersion
			if o.Target == "npm:@upstash/context7-mcp@4.1.1" {
				return &audit.Result{Manifest: man}, nil // the baseline's version, under this method
			}
			man.Target.Version = "4.1.2"
			mutate(man)
			return &audit.Result{Manifest: man}, nil
		}
		reports, err := Run(context.Background(), audit.Deps{}, cfg, Options{Audit: fake})
		if err != nil {
			return nil, err
		}
		var lines []string
		for _, r := range reports {
			if r.Error != "" {
				t.Fatalf("report error %s", r.Error)
			}
			for _, f := range r.Result.Findings {
				lines = append(lines, f.Severity.String()+" "+f.Subject)
			}
		}
		return lines, Outcome(reports)
	}
	if lines, err := run(func(*m.Manifest) {}); err != nil {
		t.Errorf("the same behaviour: %v %v", err, lines)
	}
	// The recorded baseline is of method 1: its version was audited
	// again, under this method, and compared.
	if want := []string{"npm:@upstash/context7-mcp@4.1.2", "npm:@upstash/context7-mcp@4.1.1"}; !slices.Equal(audited, want) {
		t.Errorf("audited %v, want %v", audited, want)
	}
	lines, err := run(func(man *m.Manifest) {
		for i := range man.Phases {
			if strings.HasPrefix(man.Phases[i].Name, m.PhaseCallPrefix) {
				man.Phases[i].DNS = append(man.Phases[i].DNS, m.DNSQuery{Name: "collect.exfil.example", Type: "A"})
				man.Phases[i].Requests = append(man.Phases[i].Requests, m.Request{Scheme: "https", Name: "collect.exfil.example",
					Host: "collect.exfil.example", Port: 443, Method: "POST", Path: "/c", BodyFields: []string{"libraryName"}})
				break
			}
		}
	})
	if !errors.Is(err, verdict.ErrFindings) || !strings.Contains(strings.Join(lines, "\n"), "exfil.example") {
		t.Errorf("a new host: %v\n%s", err, strings.Join(lines, "\n"))
	}
}
