package schemas

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

var update = flag.Bool("update", false, "rewrite the generated schemas")

// TestSchemasCurrent: manifest.schema.json and report.schema.json are
// what the Go types say (manifestSchema, reportSchema); a field added
// without the schema fails here until it is regenerated with -update.
func TestSchemasCurrent(t *testing.T) {
	for name, gen := range map[string]func() (*jsonschema.Schema, error){Manifest: manifestSchema, Report: reportSchema} {
		s, err := gen()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if *update {
			os.WriteFile(name, buf.Bytes(), 0o644)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("%v (run with -update)", err)
		}
		if !bytes.Equal(got, buf.Bytes()) {
			t.Errorf("%s is not what the Go types say: run go test ./schemas -update", name)
		}
	}
}

// TestRecordedManifestsValidate: every manifest the project keeps — the
// study's 40 and the baselines — is valid under manifest.schema.json; a
// broken one is not. (The classify goldens are no manifests: they have
// no outcome yet.)
func TestRecordedManifestsValidate(t *testing.T) {
	var files []string
	for _, root := range []string{"../internal/policy/testdata/study", "../baselines"} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) < 40 {
		t.Fatalf("found %d manifests, want the study's 40 and more", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := Validate(Manifest, data); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	good, _ := os.ReadFile(files[0])
	for name, bad := range map[string]string{
		"an unknown field":      strings.Replace(string(good), `"schema_version"`, `"schemaVersion": 2, "schema_version"`, 1),
		"a future version":      regexp.MustCompile(`"schema_version": \d+`).ReplaceAllString(string(good), `"schema_version": 9`),
		"an unknown status":     regexp.MustCompile(`"status": "[a-z-]+"`).ReplaceAllString(string(good), `"status": "fine"`),
		"a hollow manifest":     `{"schema_version": 2}`,
		"a list that is a text": regexp.MustCompile(`"tools": \[`).ReplaceAllString(string(good), `"tools": "x", "x": [`),
	} {
		if bad == string(good) {
			t.Fatalf("%s: the mutation did not apply", name)
		}
		if Validate(Manifest, []byte(bad)) == nil {
			t.Errorf("%s passes the schema", name)
		}
	}
}

// TestReportValidates: the JSON report's golden (internal/report) is
// valid under report.schema.json, and carries its schema version and the
// tool's; a report without them is not.
func TestReportValidates(t *testing.T) {
	good, err := os.ReadFile("../internal/report/testdata/diff.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(Report, good); err != nil {
		t.Errorf("diff.json: %v", err)
	}
	for name, bad := range map[string]string{
		"no schema version": strings.Replace(string(good), `"schema_version": 1,`, ``, 1),
		"no tool":           regexp.MustCompile(`(?s)"tool": \{.*?\},`).ReplaceAllString(string(good), ``),
		"a verdict of none": strings.Replace(string(good), `"verdict": "fail"`, `"verdict": "maybe"`, 1),
		"a severity number": strings.Replace(string(good), `"severity": "high"`, `"severity": 3`, 1),
	} {
		if bad == string(good) {
			t.Fatalf("%s: the mutation did not apply", name)
		}
		if Validate(Report, []byte(bad)) == nil {
			t.Errorf("%s passes the schema", name)
		}
	}
}
