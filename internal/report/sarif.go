package report

import (
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"

	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// FormatSARIF is SARIF 2.1.0 for code scanning.
const FormatSARIF = "sarif"

// SARIF renders findings as SARIF 2.1.0 for code scanning. Every result
// points at the server's entry in the configuration file, the line a
// reviewer would change to accept or reject the version: its version line
// when the configuration pins one (config.Server.ReportLine).
type SARIF struct {
	ConfigPath string         // repository-relative path of mcp-audit.yml
	Lines      map[string]int // server name -> line in ConfigPath (its version line, else its name)
	// Files, when set, puts a server's results in another file than
	// ConfigPath (scan: the client configuration the server is in, with
	// Lines its entry's line).
	Files   map[string]string
	Version string // mcp-audit version
}

// location is where a server's results point.
func (s SARIF) location(server, cfg string) sarifLocation {
	var loc sarifLocation
	loc.PhysicalLocation.ArtifactLocation.URI = cfg
	if f := s.Files[server]; f != "" {
		loc.PhysicalLocation.ArtifactLocation.URI = f
	}
	loc.PhysicalLocation.Region.StartLine = max(1, s.Lines[server])
	return loc
}

// sarifName is a server's target as results name it, marked when it was
// audited surface only.
func sarifName(r DiffReport) string {
	n := r.Result.New.Name + " " + r.Result.New.Version
	if r.SurfaceOnly {
		n += " " + SurfaceMark
	}
	return n
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
	// Properties carry each server's verdict and coverage.
	Properties map[string]any `json:"properties,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Version        string      `json:"version,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      sarifText      `json:"fullDescription"`
	Help                 sarifText      `json:"help"`
	HelpURI              string         `json:"helpUri"`
	DefaultConfiguration sarifLevel     `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties"`
}

type sarifText struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifLevel struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          map[string]any    `json:"properties"`
}

type sarifLocation struct {
	PhysicalLocation struct {
		ArtifactLocation struct {
			URI string `json:"uri"`
		} `json:"artifactLocation"`
		Region struct {
			StartLine int `json:"startLine"`
		} `json:"region"`
	} `json:"physicalLocation"`
}

// RuleID is the SARIF rule of a finding: its kind and severity. GitHub
// code scanning reads a result's severity from its rule only, so a rule
// per kind and severity keeps each result's severity its own, whatever
// else the file holds.
func RuleID(kind string, sev policy.Severity) string { return kind + "/" + sev.String() }

func level(s policy.Severity) string {
	switch {
	case s >= policy.High:
		return "error"
	case s == policy.Medium:
		return "warning"
	}
	return "note"
}

func securitySeverity(s policy.Severity) string {
	return []string{"1.0", "3.0", "5.5", "8.0", "9.5"}[min(int(s), 4)]
}

// KindIncomplete is the SARIF rule of a server whose audit was
// incomplete (manifest.VerdictIncomplete).
const KindIncomplete = "incomplete"

// textLines cleans each text of ss for one line.
func textLines(ss []string) []string {
	out := []string{}
	for _, s := range ss {
		out = append(out, textsafe.Line(s, 1000))
	}
	return out
}

// Write renders the findings of reports.
func (s SARIF) Write(w io.Writer, reports []DiffReport) error {
	cfg := s.ConfigPath
	if cfg == "" {
		cfg = "mcp-audit.yml"
	}
	type ruleKey struct {
		kind string
		sev  policy.Severity
	}
	used := map[ruleKey]bool{}
	seen := map[string]int{}
	var results []sarifResult
	for _, r := range reports {
		if r.Result == nil {
			continue
		}
		for _, f := range r.Result.Findings {
			used[ruleKey{f.Kind, f.Severity}] = true
			loc := s.location(r.Server, cfg)
			msg := fmt.Sprintf("%s: %s", sarifName(r), f.Summary)
			if f.Phase != "" {
				msg += " [" + f.Where() + "]"
			}
			if f.Evidence != "" {
				msg += ". Evidence: " + f.Evidence
			}
			// The same key twice in one server (two versions checked in one
			// run) stays two results: the occurrence is part of the print.
			key := r.Server + "\x00" + f.Kind + "\x00" + f.Key()
			seen[key]++
			sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d", key, seen[key]))
			results = append(results, sarifResult{
				RuleID: RuleID(f.Kind, f.Severity), Level: level(f.Severity), Message: sarifText{Text: textsafe.Line(msg, 4000)},
				Locations:           []sarifLocation{loc},
				PartialFingerprints: map[string]string{"mcpAudit/v1": hex.EncodeToString(sum[:16])},
				Properties: map[string]any{"security-severity": securitySeverity(f.Severity), "severity": f.Severity.String(),
					"server": line(r.Server), "version": line(r.Result.New.Version)},
			})
		}
	}
	servers, incomplete := s.servers(reports, cfg)
	results = append(results, incomplete...)
	if len(incomplete) > 0 {
		used[ruleKey{KindIncomplete, policy.Medium}] = true
	}
	var keys []ruleKey
	for k := range used {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].kind != keys[j].kind {
			return keys[i].kind < keys[j].kind
		}
		return keys[i].sev > keys[j].sev
	})
	rules := []sarifRule{}
	for _, k := range keys {
		rules = append(rules, sarifRuleFor(k.kind, k.sev))
	}
	if results == nil {
		results = []sarifResult{}
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs: []sarifRun{{Tool: sarifTool{Driver: sarifDriver{Name: "mcp-audit",
			InformationURI: "https://github.com/mcp-audit/mcp-audit", Version: s.Version, Rules: rules}}, Results: results,
			Properties: map[string]any{"servers": servers}}},
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// servers are each server's verdict and coverage for the run's
// properties, and a result for each server whose audit was incomplete:
// code scanning shows it rather than a clean run.
func (s SARIF) servers(reports []DiffReport, cfg string) ([]map[string]any, []sarifResult) {
	var servers []map[string]any
	var results []sarifResult
	for _, r := range reports {
		if r.Result == nil {
			continue
		}
		props := map[string]any{"server": line(r.Server), "version": line(r.Result.New.Version),
			"verdict": r.Result.Verdict, "coverage": textsafe.Line(r.Result.Coverage, 500), "incomplete": textLines(r.Result.Incomplete)}
		if r.SurfaceOnly {
			props["surface_only"] = true
		}
		servers = append(servers, props)
		if r.Result.Verdict != m.VerdictIncomplete {
			continue
		}
		loc := s.location(r.Server, cfg)
		msg := fmt.Sprintf("%s could not be audited as a verdict needs: %s", sarifName(r), strings.Join(r.Result.Incomplete, "; "))
		sum := sha256.Sum256([]byte(r.Server + "\x00" + KindIncomplete))
		results = append(results, sarifResult{RuleID: RuleID(KindIncomplete, policy.Medium), Level: level(policy.Medium), Message: sarifText{Text: textsafe.Line(msg, 4000)},
			Locations: []sarifLocation{loc}, PartialFingerprints: map[string]string{"mcpAudit/v1": hex.EncodeToString(sum[:16])},
			Properties: map[string]any{"security-severity": securitySeverity(policy.Medium), "severity": policy.Medium.String(),
				"server": line(r.Server), "version": line(r.Result.New.Version)}})
	}
	return servers, results
}

// sarifRuleFor is the rule of one kind at one severity: the kind's
// documentation as its help (KindDoc, the same text as `mcp-audit
// explain`), its docs anchor as its help URI, and the severity's level
// and security-severity, which depend on nothing else in the file.
func sarifRuleFor(kind string, sev policy.Severity) sarifRule {
	d, ok := Explain(kind)
	if !ok {
		d = KindDoc{Kind: kind, Title: kind, What: "A finding of kind " + kind + ".", Do: "See the finding kinds in docs/policy.md."}
	}
	id := RuleID(kind, sev)
	return sarifRule{ID: id, Name: id,
		ShortDescription: sarifText{Text: capitalize(d.Title) + " (" + sev.String() + ")"},
		FullDescription:  sarifText{Text: d.What},
		Help: sarifText{Text: d.What + "\n\nWhat to do: " + d.Do + "\n\nMore: " + DocsLink(kind),
			Markdown: d.What + "\n\n**What to do:** " + d.Do + "\n\n[Finding kind `" + kind + "`](" + DocsLink(kind) + ")"},
		HelpURI:              DocsLink(kind),
		DefaultConfiguration: sarifLevel{level(sev)},
		// GitHub reads security-severity from the rule, for rules tagged
		// security; the result's copy is for other consumers.
		Properties: map[string]any{"tags": []string{"security", "mcp"}, "security-severity": securitySeverity(sev),
			"precision": "high", "problem.severity": level(sev)}}
}
