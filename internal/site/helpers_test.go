package site

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-audit/mcp-audit/internal/baseline"
	"github.com/mcp-audit/mcp-audit/internal/batch"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// run is one batch run: servers by name with their manifests.
type run struct {
	at      string // audited_at of every record
	servers map[string]*m.Manifest
}

// writeRun writes a batch results directory the way a batch does:
// manifests at stable paths, records, then batch.Publish.
func writeRun(t *testing.T, r run) string {
	t.Helper()
	out := t.TempDir()
	for server, man := range r.servers {
		p, err := baseline.Write(filepath.Join(out, "manifests"), man)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(out, p)
		sum := sha256.Sum256(data)
		fs := policy.Evaluate(man, policy.Policy{FailOn: policy.DefaultFailOn})
		verdict := m.VerdictPass
		if policy.Failed(fs, policy.DefaultFailOn) {
			verdict = m.VerdictFail
		}
		rec := batch.Record{Server: server, Target: "npm:" + man.Target.Name + "@" + man.Target.Version, Status: batch.StatusDone,
			Ecosystem: man.Target.Ecosystem, Name: man.Target.Name, Version: man.Target.Version, Outcome: man.Outcome.Status,
			Manifest: filepath.ToSlash(rel), Digest: "sha256:" + hex.EncodeToString(sum[:]), Verdict: verdict,
			Counts: policy.Counts(fs), Findings: fs, AuditedAt: r.at}
		b, _ := json.MarshalIndent(rec, "", "  ")
		os.MkdirAll(filepath.Join(out, "records"), 0o755)
		if err := os.WriteFile(filepath.Join(out, "records", server+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := batch.Publish(out); err != nil {
		t.Fatal(err)
	}
	return out
}

// server is a fixture manifest contacting hosts at startup.
func server(name, version string, hosts ...string) *m.Manifest {
	ph := m.Phase{Name: m.PhaseStartup}
	for _, h := range hosts {
		ph.Network = append(ph.Network, m.Connection{Proto: "tcp", Op: "connect", Name: h, Port: 443, Category: m.ConnEgress})
	}
	return &m.Manifest{SchemaVersion: m.SchemaVersion, Target: m.Target{Ecosystem: "npm", Name: name, Version: version},
		Outcome: m.Outcome{Status: m.StatusOK}, Phases: []m.Phase{ph, {Name: m.PhaseIdle}}}
}

// snapshot reads every file of a site.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func publish(t *testing.T, out string, results ...string) *Summary {
	t.Helper()
	sum, err := Publish(Options{Out: out, Results: results, BaseURL: "https://feeds.example/mcp/"})
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// ValidateSchema checks a JSON document against a schema under schemas/.
func validateSchema(t *testing.T, schema string, doc []byte) error {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "schemas", schema))
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return err
	}
	return rs.Validate(v)
}
