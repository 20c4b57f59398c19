package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/diff"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/schemas"
)

// TestSARIFMatchesOASISSchema validates the SARIF mcp-audit writes
// against the OASIS SARIF 2.1.0 schema's constraints on the objects it
// uses (testdata/sarif-2.1.0-subset.schema.json says which, and why the
// OASIS file itself is not vendored), beside TestSARIFGitHubIngests.
// Hand-made violations show the check can fail.
func TestSARIFMatchesOASISSchema(t *testing.T) {
	schema, err := os.ReadFile("testdata/sarif-2.1.0-subset.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	reports := append(sampleDiff(), judgedReport("hollow", policy.Policy{FailOn: policy.High}, []string{"every tool call failed"}))
	if err := (SARIF{ConfigPath: "mcp-audit.yml", Lines: map[string]int{"mail": 7}, Version: "test"}).Write(&buf, reports); err != nil {
		t.Fatal(err)
	}
	if err := schemas.ValidateWith(schema, buf.Bytes()); err != nil {
		t.Errorf("mcp-audit's SARIF: %v", err)
	}
	good := buf.String()
	for name, bad := range map[string]string{
		"an unknown level":        strings.Replace(good, `"level": "error"`, `"level": "severe"`, 1),
		"line 0":                  strings.Replace(good, `"startLine": 7`, `"startLine": 0`, 1),
		"another SARIF version":   strings.Replace(good, `"version": "2.1.0"`, `"version": "2.0.0"`, 1),
		"a result without a text": strings.Replace(good, `"message": {`, `"message": {"markdown": "x", "x-text":`, 1),
		"a property SARIF lacks":  strings.Replace(good, `"ruleId":`, `"rule_id": "x", "ruleId":`, 1),
	} {
		if bad == good {
			t.Fatalf("%s: the mutation did not apply", name)
		}
		if schemas.ValidateWith(schema, []byte(bad)) == nil {
			t.Errorf("%s passes the schema", name)
		}
	}
}

// TestSARIFRuleSeverityIsItsOwn: GitHub reads a result's severity from
// its rule, so each kind and severity is its own rule, and a rule is the
// same whatever else the file holds: six medium results of a kind stay
// medium beside a critical one of the same kind.
func TestSARIFRuleSeverityIsItsOwn(t *testing.T) {
	medium := func(i int) policy.Finding {
		return policy.Finding{Severity: policy.Medium, Kind: policy.KindCanary, Phase: "startup", Subject: "dotenv" + string(rune('a'+i)), Summary: "read .env"}
	}
	rep := func(server string, fs ...policy.Finding) DiffReport {
		return DiffReport{Server: server, Result: &diff.Result{New: diff.Version{Name: server, Version: "1"}, Findings: fs, Verdict: "pass", FailOn: policy.High}}
	}
	var mediums []DiffReport
	for i := range 6 {
		mediums = append(mediums, rep("s"+string(rune('a'+i)), medium(i)))
	}
	thief := rep("thief", policy.Finding{Severity: policy.Critical, Kind: policy.KindCanary, Phase: "startup", Subject: "file:~/.npmrc", Summary: "canary"})
	rules := func(reports []DiffReport) map[string]json.RawMessage {
		var buf bytes.Buffer
		if err := (SARIF{Version: "test"}).Write(&buf, reports); err != nil {
			t.Fatal(err)
		}
		var log struct {
			Runs []struct {
				Tool struct {
					Driver struct {
						Rules []json.RawMessage `json:"rules"`
					} `json:"driver"`
				} `json:"tool"`
				Results []struct {
					RuleID string `json:"ruleId"`
				} `json:"results"`
			} `json:"runs"`
		}
		json.Unmarshal(buf.Bytes(), &log)
		out := map[string]json.RawMessage{}
		for _, r := range log.Runs[0].Tool.Driver.Rules {
			var id struct {
				ID string `json:"id"`
			}
			json.Unmarshal(r, &id)
			out[id.ID] = r
		}
		for _, res := range log.Runs[0].Results {
			if _, ok := out[res.RuleID]; !ok {
				t.Errorf("result of rule %q, which the run does not define", res.RuleID)
			}
		}
		return out
	}
	alone, mixed := rules(mediums), rules(append(mediums, thief))
	if len(alone) != 1 || len(mixed) != 2 {
		t.Fatalf("rules %d alone and %d mixed, want 1 and 2", len(alone), len(mixed))
	}
	if string(alone["canary/medium"]) != string(mixed["canary/medium"]) {
		t.Errorf("the medium rule depends on the other results:\n%s\n%s", alone["canary/medium"], mixed["canary/medium"])
	}
	for id, want := range map[string]string{"canary/medium": `"security-severity": "5.5"`, "canary/critical": `"security-severity": "9.5"`} {
		if !strings.Contains(string(mixed[id]), want) {
			t.Errorf("rule %s lacks %s: %s", id, want, mixed[id])
		}
	}
	if !strings.Contains(string(mixed["canary/medium"]), `"helpUri": "`+DocsLink("canary")+`"`) {
		t.Errorf("rule canary/medium does not link its kind's docs anchor: %s", mixed["canary/medium"])
	}
}
