package argsynth

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// studyDir holds the 40 recorded study manifests (internal/policy owns
// them); their tools and calls are real servers' schemas and answers.
const studyDir = "../policy/testdata/study"

// studyCall is a recorded call of a study manifest.
type studyCall struct {
	Phase   string          `json:"phase"`
	Kind    string          `json:"kind"`
	Name    string          `json:"name"`
	Args    json.RawMessage `json:"args"`
	Outcome string          `json:"outcome"`
	Detail  string          `json:"detail"`
}

// studyServer is one manifest's tools and calls.
type studyServer struct {
	name  string
	tools []Tool
	calls []studyCall
}

func loadStudy(t *testing.T) []studyServer {
	t.Helper()
	var out []studyServer
	err := filepath.WalkDir(studyDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var m struct {
			Tools []struct {
				Name        string          `json:"name"`
				Title       string          `json:"title"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"input_schema"`
				Annotations json.RawMessage `json:"annotations"`
			} `json:"tools"`
			Calls []studyCall `json:"calls"`
		}
		if err := json.Unmarshal(data, &m); err != nil {
			return err
		}
		s := studyServer{name: strings.TrimPrefix(filepath.ToSlash(path), studyDir+"/"), calls: m.Calls}
		for _, x := range m.Tools {
			s.tools = append(s.tools, Tool{Name: x.Name, Title: x.Title, Description: x.Description, InputSchema: x.InputSchema, Annotations: x.Annotations})
		}
		out = append(out, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 40 {
		t.Fatalf("%d study manifests, want 40", len(out))
	}
	return out
}

func TestStudyDump(t *testing.T) {
	if os.Getenv("ARGSYNTH_DUMP") == "" {
		t.Skip("set ARGSYNTH_DUMP=1")
	}
	for _, s := range loadStudy(t) {
		for _, tool := range s.tools {
			for _, set := range Plan(tool, nil) {
				t.Logf("%s %s %s valid=%v %s", s.name, tool.Name, set.Reason, set.Valid, set.Args)
			}
		}
	}
}

func TestStudyRetryDump(t *testing.T) {
	if os.Getenv("ARGSYNTH_DUMP") == "" {
		t.Skip("set ARGSYNTH_DUMP=1")
	}
	for _, s := range loadStudy(t) {
		byName := map[string]Tool{}
		for _, tool := range s.tools {
			byName[tool.Name] = tool
		}
		for _, c := range s.calls {
			if c.Outcome == "ok" || c.Detail == "" {
				continue
			}
			tool := byName[c.Name]
			if c.Kind != "tool" {
				tool = Tool{Name: c.Name}
			}
			fixed, ok := Correct(tool, Set{Args: c.Args, Valid: true}, c.Detail)
			t.Logf("%v %s %q\n   issues=%+v\n   %s -> %s", ok, c.Name, c.Detail[:min(len(c.Detail), 90)], ParseError(c.Detail), c.Args, fixed.Args)
		}
	}
}
