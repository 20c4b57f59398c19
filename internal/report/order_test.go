package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// judgedReport is a report of one server with findings fs under pol.
func judgedReport(server string, pol policy.Policy, incomplete []string, fs ...policy.Finding) DiffReport {
	res := &diff.Result{New: diff.Version{Ecosystem: "npm", Name: server, Version: "1.0.0"}, Findings: fs, FailOn: pol.FailOn,
		Incomplete: incomplete, Changes: []diff.Change{}}
	res.Verdict = policy.Verdict(fs, pol, incomplete)
	res.Counts = policy.Counts(fs)
	return DiffReport{Server: server, Result: res}
}

var dotenv = policy.Finding{Severity: policy.Medium, Kind: policy.KindCanary, Phase: "startup", Subject: "file:<workspace>/.env file-read",
	Summary: "read the .env file of its working directory (dotenv does this at startup)"}

func high(kind, subject string) policy.Finding {
	return policy.Finding{Severity: policy.High, Kind: kind, Phase: "startup", Subject: subject, Summary: kind + " " + subject}
}

// TestHarmOrder: verdict first (fail, incomplete, pass), then the worst
// severity, then the harm class, then the counts. A server failing with
// five high findings sits above passing servers whose only "canary" is
// the medium dotenv read, which sorts alphabetically before it.
func TestHarmOrder(t *testing.T) {
	pol := policy.Policy{FailOn: policy.High}
	var reports []DiffReport
	for i := range 6 {
		reports = append(reports, judgedReport(fmt.Sprintf("a-dotenv-%d", i), pol, nil, dotenv))
	}
	var fiveHigh []policy.Finding
	for i := range 5 {
		fiveHigh = append(fiveHigh, high(policy.KindHost, fmt.Sprintf("h%d.example", i)))
	}
	reports = append(reports,
		judgedReport("m-five-high", pol, nil, fiveHigh...),
		judgedReport("n-one-high", pol, nil, high(policy.KindHost, "x.example")),
		judgedReport("o-high-credential-file", pol, nil, high(policy.KindSensitive, "~/.kube/config")),
		judgedReport("p-canary", pol, nil, policy.Finding{Severity: policy.Critical, Kind: policy.KindCanary, Subject: "file:~/.npmrc file-read"}),
		judgedReport("q-persistence", pol, nil, policy.Finding{Severity: policy.Critical, Kind: policy.KindPersistence, Subject: "~/.bashrc"}),
		judgedReport("b-incomplete", pol, []string{"every tool call failed"}),
		DiffReport{Server: "c-broken", Error: "fetching npm:c-broken: not found"},
	)
	var got []string
	for _, r := range Ordered(reports) {
		got = append(got, r.Server)
	}
	want := []string{"p-canary", "q-persistence", "o-high-credential-file", "m-five-high", "n-one-high", "c-broken", "b-incomplete",
		"a-dotenv-0", "a-dotenv-1", "a-dotenv-2", "a-dotenv-3", "a-dotenv-4", "a-dotenv-5"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if RealCanary(dotenv) || !RealCanary(reports[9].Result.Findings[0]) {
		t.Error("the dotenv read is no canary theft; the critical decoy read is")
	}
}

// TestTextRollup: a text report of several servers starts with one
// roll-up naming each failing server with its worst findings, the most
// harmful first, and the passing ones on one line.
func TestTextRollup(t *testing.T) {
	pol := policy.Policy{FailOn: policy.High}
	reports := []DiffReport{judgedReport("a-clean", pol, nil), judgedReport("b-dotenv", pol, nil, dotenv),
		judgedReport("z-thief", pol, nil, policy.Finding{Severity: policy.Critical, Kind: policy.KindCanary, Subject: "file:~/.npmrc file-read"})}
	var buf bytes.Buffer
	if err := WriteDiffs(&buf, FormatText, reports); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	want := []string{
		"mcp-audit: 3 servers: 1 fail, 0 incomplete, 2 pass; findings: 1 critical, 1 medium",
		"  FAIL        z-thief 1.0.0 (no baseline): 1 critical (canary)",
		"  pass        b-dotenv 1.0.0 (no baseline), a-clean 1.0.0 (no baseline)",
		"",
		"mcp-audit diff: z-thief 1.0.0 (no baseline)",
	}
	if diff := cmp.Diff(want, lines[:len(want)]); diff != "" {
		t.Errorf("head of the report (-want +got):\n%s", diff)
	}
	// A single server has no roll-up.
	buf.Reset()
	WriteDiffs(&buf, FormatText, reports[:1])
	if !strings.HasPrefix(buf.String(), "mcp-audit diff: a-clean") {
		t.Errorf("one server's report starts %q", buf.String()[:40])
	}
}

// TestMarkdownFitsAComment: 40 servers with long reports still fit
// GitHub's 65,536-byte limit; the failing servers come first with their
// findings, every server is in the roll-up, and the report says where
// the full one is. A small report is written in full.
func TestMarkdownFitsAComment(t *testing.T) {
	pol := policy.Policy{FailOn: policy.High}
	var reports []DiffReport
	for i := range 40 {
		var fs []policy.Finding
		for j := range 60 {
			fs = append(fs, policy.Finding{Severity: policy.Low, Kind: policy.KindHost, Phase: "call:t",
				Subject: fmt.Sprintf("api%d.example", j), Summary: "looked up host " + strings.Repeat("long-name.", 8), Evidence: strings.Repeat("e", 300)})
		}
		r := judgedReport(fmt.Sprintf("server-%02d", i), pol, nil, fs...)
		for j := range 150 {
			r.Result.Changes = append(r.Result.Changes, diff.Change{Op: diff.Added, Area: m.AreaDNS, Phase: "call:t", Subject: fmt.Sprintf("n%d.example A", j), Detail: "127.0.0.1"})
		}
		reports = append(reports, r)
	}
	thief := policy.Finding{Severity: policy.Critical, Kind: policy.KindCanary, Phase: "startup", Subject: "file:~/.npmrc file-read",
		Summary: "canary file:~/.npmrc: decoy file read", Evidence: "~/.npmrc"}
	reports[33] = judgedReport("server-33-thief", pol, nil, append(reports[33].Result.Findings, thief)...)
	reports[37] = judgedReport("server-37-writer", pol, nil, high(policy.KindAIConfig, "~/.cursor/mcp.json"))
	var buf bytes.Buffer
	if err := WriteDiffs(&buf, FormatMarkdown, reports); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if len(out) > CommentBudget {
		t.Fatalf("%d bytes, over the budget of %d", len(out), CommentBudget)
	}
	thiefAt, writerAt := strings.Index(out, "### server-33-thief"), strings.Index(out, "### server-37-writer")
	if thiefAt < 0 || writerAt < thiefAt || !strings.Contains(out, "decoy file read") {
		t.Errorf("the failing servers are not first with their findings (at %d and %d)", thiefAt, writerAt)
	}
	for _, s := range []string{"server-00", "server-39"} {
		if !strings.Contains(out[:thiefAt], s) {
			t.Errorf("%s is not in the roll-up", s)
		}
	}
	if !strings.Contains(out, "are shown in full") || !strings.Contains(out, FullReport) {
		t.Error("a shortened report must say so and where the full one is")
	}
	buf.Reset()
	WriteDiffs(&buf, FormatMarkdown, reports[:2])
	if strings.Contains(buf.String(), "are shown in full") || strings.Count(buf.String(), "### server-") != 2 {
		t.Error("a small report is written in full")
	}
}

// TestVerdictText: the verdict names its real reason in every case, and
// a threshold is written as the user wrote it (never "unknown").
func TestVerdictText(t *testing.T) {
	var nineHigh []policy.Finding
	for i := range 9 {
		nineHigh = append(nineHigh, high(policy.KindSensitive, fmt.Sprintf("~/.secret%d", i)))
	}
	canary := policy.Finding{Severity: policy.Critical, Kind: policy.KindCanary, Subject: "file:~/.npmrc file-read"}
	none, _ := policy.ParseSeverity("none")
	for _, tc := range []struct {
		name       string
		fs         []policy.Finding
		failOn     policy.Severity
		incomplete []string
		want       string
	}{
		{"harm below the threshold", nineHigh, policy.Critical, nil, "FAIL (9 harmful findings, which fail at any threshold: 9 high sensitive-file)"},
		{"at the threshold", []policy.Finding{canary}, policy.High, nil, "FAIL (1 finding at or above high)"},
		{"both", append([]policy.Finding{canary}, nineHigh...), policy.Critical, nil,
			"FAIL (1 finding at or above critical; 9 harmful findings, which fail at any threshold: 9 high sensitive-file)"},
		{"report only", []policy.Finding{canary, dotenv}, none, nil,
			"report only (--fail-on none: nothing fails the run); 1 harmful finding would fail at any other threshold: 1 critical canary"},
		{"report only, clean", nil, none, []string{"every call failed"}, "report only (--fail-on none: nothing fails the run); the audit is incomplete"},
		{"incomplete", []policy.Finding{dotenv}, policy.High, []string{"every call failed"},
			"INCOMPLETE (nothing at or above high, but the audit could not observe what a verdict needs; --allow-incomplete to accept)"},
		{"pass", []policy.Finding{dotenv}, policy.High, nil, "pass (nothing at or above high)"},
	} {
		pol := policy.Policy{FailOn: tc.failOn}
		got := VerdictText(policy.Verdict(tc.fs, pol, tc.incomplete), tc.fs, pol, tc.incomplete)
		if got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}
