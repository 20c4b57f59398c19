package report

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestSARIFLocations: every result points at its server's line in the
// configuration (config.Server.ReportLine: the version line of a bump),
// line 1 of the default file when the server has none.
func TestSARIFLocations(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sarif    SARIF
		wantURI  string
		wantLine int
	}{
		{"version line", SARIF{ConfigPath: "ci/mcp-audit.yml", Lines: map[string]int{"mail": 5, "notes": 9}}, "ci/mcp-audit.yml", 5},
		{"server not in the file", SARIF{ConfigPath: "mcp-audit.yml", Lines: map[string]int{"notes": 9}}, "mcp-audit.yml", 1},
		{"no configuration", SARIF{}, "mcp-audit.yml", 1},
	} {
		var buf bytes.Buffer
		if err := tc.sarif.Write(&buf, sampleDiff()); err != nil {
			t.Fatal(err)
		}
		var log sarifLog
		if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
			t.Fatal(err)
		}
		results := log.Runs[0].Results
		if len(results) == 0 {
			t.Fatalf("%s: no results", tc.name)
		}
		for _, r := range results {
			loc := r.Locations[0].PhysicalLocation
			if loc.ArtifactLocation.URI != tc.wantURI || loc.Region.StartLine != tc.wantLine {
				t.Errorf("%s: %s at %s:%d, want %s:%d", tc.name, r.RuleID, loc.ArtifactLocation.URI, loc.Region.StartLine, tc.wantURI, tc.wantLine)
			}
		}
		if problems := githubIngests(buf.Bytes()); len(problems) > 0 {
			t.Errorf("%s: GitHub would not ingest it: %v", tc.name, problems)
		}
	}
}
