package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/diff"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// githubIngests checks a SARIF log against what GitHub code scanning
// requires beyond the OASIS schema (docs.github.com, "SARIF support for
// code scanning"), each rule as the docs state it:
//
//   - a file has at most 20 runs, a run at most 25,000 results and 25,000
//     rules, a result at most 1,000 locations, a rule at most 20 tags;
//   - runs[].tool.driver.name is set;
//   - every result has ruleId, message.text and at least one location,
//     and its ruleId names a rule of the run's driver;
//   - level is none, note, warning or error (results and defaults);
//   - physicalLocation.artifactLocation.uri is relative to the repository
//     (no scheme, no leading /, no ..), region.startLine >= 1;
//   - partialFingerprints are string to string;
//   - a rule's security-severity, read only from rules tagged "security",
//     is a string holding a number from 0.0 to 10.0; rules have
//     shortDescription, fullDescription and help text (shown in the alert).
func githubIngests(data []byte) []string {
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID               string         `json:"id"`
						ShortDescription sarifText      `json:"shortDescription"`
						FullDescription  sarifText      `json:"fullDescription"`
						Help             sarifText      `json:"help"`
						Default          sarifLevel     `json:"defaultConfiguration"`
						Properties       map[string]any `json:"properties"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID       string            `json:"ruleId"`
				Level        string            `json:"level"`
				Message      sarifText         `json:"message"`
				Locations    []sarifLocation   `json:"locations"`
				Fingerprints map[string]string `json:"partialFingerprints"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &log); err != nil {
		return []string{err.Error()}
	}
	var errs []string
	bad := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }
	levels := map[string]bool{"none": true, "note": true, "warning": true, "error": true}
	if len(log.Runs) == 0 || len(log.Runs) > 20 {
		bad("%d runs", len(log.Runs))
	}
	for _, run := range log.Runs {
		d := run.Tool.Driver
		if d.Name == "" {
			bad("no driver name")
		}
		if len(run.Results) > 25000 || len(d.Rules) > 25000 {
			bad("%d results, %d rules", len(run.Results), len(d.Rules))
		}
		rules := map[string]bool{}
		for _, r := range d.Rules {
			rules[r.ID] = true
			if r.ShortDescription.Text == "" || r.FullDescription.Text == "" || r.Help.Text == "" {
				bad("rule %s: a description or help is missing", r.ID)
			}
			if !levels[r.Default.Level] {
				bad("rule %s: default level %q", r.ID, r.Default.Level)
			}
			tags, _ := r.Properties["tags"].([]any)
			if len(tags) > 20 || !strings.Contains(fmt.Sprint(tags), "security") {
				bad("rule %s: tags %v", r.ID, tags)
			}
			sev, ok := r.Properties["security-severity"].(string)
			if f, err := strconv.ParseFloat(sev, 64); !ok || err != nil || f < 0 || f > 10 {
				bad("rule %s: security-severity %#v is not a string number 0.0-10.0", r.ID, r.Properties["security-severity"])
			}
		}
		for i, res := range run.Results {
			if res.RuleID == "" || !rules[res.RuleID] || res.Message.Text == "" || !levels[res.Level] {
				bad("result %d: ruleId %q (a rule: %v), level %q, message %q", i, res.RuleID, rules[res.RuleID], res.Level, res.Message.Text)
			}
			if len(res.Locations) == 0 || len(res.Locations) > 1000 {
				bad("result %d: %d locations", i, len(res.Locations))
			}
			for _, l := range res.Locations {
				uri := l.PhysicalLocation.ArtifactLocation.URI
				if uri == "" || strings.Contains(uri, ":") || strings.HasPrefix(uri, "/") || strings.HasPrefix(uri, "..") {
					bad("result %d: uri %q is not repository-relative", i, uri)
				}
				if l.PhysicalLocation.Region.StartLine < 1 {
					bad("result %d: startLine %d", i, l.PhysicalLocation.Region.StartLine)
				}
			}
			if len(res.Fingerprints) == 0 {
				bad("result %d: no partialFingerprints", i)
			}
		}
	}
	return errs
}

// TestSARIFGitHubIngests: SARIF that GitHub code scanning takes in fully,
// and whose fingerprints keep distinct findings apart: the same finding in
// two versions checked in one run, and in two servers, stays separate;
// the same input gives the same prints.
func TestSARIFGitHubIngests(t *testing.T) {
	f := policy.Finding{Severity: policy.Critical, Kind: policy.KindHost, Phase: "startup", Subject: "x.example", Summary: "looked up x.example"}
	low := policy.Finding{Severity: policy.Low, Kind: policy.KindSystemFile, Phase: "startup", Subject: "/etc/hosts", Summary: "read /etc/hosts"}
	rep := func(server, version string) DiffReport {
		return DiffReport{Server: server, Baseline: true, Result: &diff.Result{New: diff.Version{Name: "p", Version: version},
			Findings: []policy.Finding{f, low}, Verdict: "fail", FailOn: policy.High}}
	}
	reports := []DiffReport{rep("a", "1.0.1"), rep("a", "1.0.2"), rep("b", "1.0.1"), {Server: "c", Error: "boom"}}
	var out, again bytes.Buffer
	s := SARIF{ConfigPath: "sub/mcp-audit.yml", Lines: map[string]int{"a": 3}, Version: "test"}
	if err := s.Write(&out, reports); err != nil {
		t.Fatal(err)
	}
	s.Write(&again, reports)
	for _, e := range githubIngests(out.Bytes()) {
		t.Error(e)
	}
	if out.String() != again.String() {
		t.Error("two renderings differ")
	}
	prints := map[string]bool{}
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.Contains(l, `"mcpAudit/v1"`) {
			prints[l] = true
		}
	}
	if len(prints) != 6 {
		t.Errorf("%d distinct fingerprints for 6 findings", len(prints))
	}
	if errs := githubIngests([]byte(`{"runs":[{"tool":{"driver":{"name":"x","rules":[{"id":"r","properties":{"security-severity":9}}]}},"results":[{"ruleId":"r","level":"bad","message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"file:///x"},"region":{"startLine":0}}}]}]}]}`)); len(errs) < 4 {
		t.Errorf("the checker misses violations: %v", errs)
	}
}
