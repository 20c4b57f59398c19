package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/batch"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// comparable reduces a results directory to what must not depend on how
// the work was split: records without timings and digests, manifests
// without their run block, the index without timestamps and RESULTS.md
// without its date.
func comparable(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	recs, err := batch.Records(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		r.Seconds, r.Digest, r.AuditedAt = 0, "", ""
		b, _ := json.MarshalIndent(r, "", " ")
		out["record "+r.Server] = string(b)
		if r.Manifest == "" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.Manifest)))
		if err != nil {
			t.Fatal(err)
		}
		man, err := m.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		man.Run = m.Run{}
		enc, _ := m.Encode(man)
		out[r.Manifest] = string(enc)
	}
	var idx batch.Index
	b, _ := os.ReadFile(filepath.Join(dir, "index.json"))
	if err := json.Unmarshal(b, &idx); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range idx.Servers {
		e.Digest, e.Generated = "", ""
		b, _ := json.Marshal(e)
		names = append(names, string(b))
	}
	sort.Strings(names)
	out["index"] = strings.Join(names, "\n")
	res, _ := os.ReadFile(filepath.Join(dir, "RESULTS.md"))
	lines := strings.Split(string(res), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "Generated ") {
			lines[i] = ""
		}
	}
	out["RESULTS.md"] = strings.Join(lines, "\n")
	return out
}
