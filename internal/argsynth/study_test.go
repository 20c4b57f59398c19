package argsynth

import (
	"encoding/json"

	"github.com/google/go-cmp/cmp"
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

// TestStudyPlans: for every tool of the 40 study servers the plan is
// bounded, deterministic, free of tells, every set validates against the
// tool's schema (checked again with Validate), and the probes are safe
// (checkStudyProbes).
func TestStudyPlans(t *testing.T) {
	tools, sets, valid, markers := 0, map[Reason]int{}, 0, 0
	for i, s := range loadStudy(t) {
		probes := map[string][]Probe{}
		for j, tool := range s.tools {
			tools++
			plan := Plan(tool, nil)
			if len(plan) == 0 || len(plan) > MaxSets || plan[0].Reason != ReasonRequired {
				t.Errorf("%s %s: %d sets", s.name, tool.Name, len(plan))
			}
			if (i+j)%4 == 0 { // a quarter of the tools, to keep -short fast
				if again := Plan(tool, nil); !cmp.Equal(plan, again) {
					t.Errorf("%s %s: two plans differ", s.name, tool.Name)
				}
			}
			own := strings.ToLower(tool.Description + string(tool.InputSchema))
			for _, set := range plan {
				sets[set.Reason]++
				probes[tool.Name] = append(probes[tool.Name], set.Probes...)
				if err := Validate(tool.InputSchema, set.Args); err != nil || !set.Valid {
					t.Errorf("%s %s %s: %s valid=%v: %v", s.name, tool.Name, set.Reason, set.Args, set.Valid, err)
				} else {
					valid++
				}
				for _, bad := range tells {
					if strings.Contains(strings.ToLower(string(set.Args)), bad) && !strings.Contains(own, bad) {
						t.Errorf("%s %s %s: %s contains %q", s.name, tool.Name, set.Reason, set.Args, bad)
					}
				}
			}
		}
		markers += checkStudyProbes(t, s.name, probes)
	}
	if markers < 50 {
		t.Errorf("only %d probe markers over the study's tools", markers)
	}
	t.Logf("%d tools: %d required, %d optional, %d candidates, %d probe sets; %d valid; %d markers", tools,
		sets[ReasonRequired], sets[ReasonOptional], sets[ReasonCandidates], sets[ReasonProbe], valid, markers)
}

// TestStudyFirstPassFixes measures, on the calls whose error named an
// argument problem, whether the new required set already avoids it (no
// correction proposed for it against the same message) or needs the
// retry.
func TestStudyFirstPassFixes(t *testing.T) {
	avoided, retried := 0, 0
	for _, s := range loadStudy(t) {
		tools := map[string]Tool{}
		for _, tool := range s.tools {
			tools[tool.Name] = tool
		}
		for _, c := range s.calls {
			tool, ok := tools[c.Name]
			if c.Outcome == "ok" || c.Detail == "" || c.Kind != "tool" || !ok {
				continue
			}
			if _, ok := Correct(tool, Set{Args: c.Args, Valid: true}, c.Detail); !ok {
				continue
			}
			set, _ := PlanSet(tool, ReasonRequired, nil)
			if _, still := Correct(tool, set, c.Detail); still {
				retried++
				t.Logf("%s: the new first set %s still draws a retry", c.Name, set.Args)
			} else {
				avoided++
			}
		}
	}
	t.Logf("argument errors: %d avoided by the new first set, %d left to the retry", avoided, retried)
	if avoided == 0 {
		t.Error("the new first sets avoid none of the study's argument errors")
	}
}
