package report_test

import (
	"bytes"
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/action"
	"github.com/mcp-audit/mcp-audit/internal/diff"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/report"
)

const policyDoc = "../../docs/policy.md"

// Markers around the generated part of docs/policy.md.
const (
	kindsStart = "<!-- finding kinds: generated from internal/report/kinddocs.go by `go test ./internal/report -run TestKindDocs -update` -->\n"
	kindsEnd   = "<!-- end of finding kinds -->\n"
)

// TestKindDocs: every finding kind is explained, `mcp-audit explain`'s
// text and docs/policy.md's section at the kind's anchor say the same,
// and each anchor exists once in the docs. -update rewrites the docs.
func TestKindDocs(t *testing.T) {
	kinds := []string{policy.KindCanary, policy.KindCredential, policy.KindPersistence, policy.KindAIConfig, policy.KindSensitive,
		policy.KindAntiAnalysis, policy.KindHost, policy.KindTelemetry, policy.KindListener, policy.KindProcess, policy.KindShell,
		policy.KindEscape, policy.KindSystemFile, policy.KindWrite, policy.KindOutcome, policy.KindTool, policy.KindTrace,
		policy.KindInstallScript, policy.KindMessage, diff.KindPayload, diff.KindCoverage, report.KindIncomplete,
		action.KindAcceptedRisk, action.KindPolicyLoosened, policy.KindDerived, policy.KindUserFile, policy.KindContract,
		policy.KindDestroyed, policy.KindEnvironment, diff.KindAnnotation, policy.KindEra, policy.KindApp,
		policy.KindDependency, policy.KindIntegrity, policy.KindStartupHook, policy.KindCommand, policy.KindLookalike, policy.KindAdvisory, policy.KindUnpinned,
		policy.KindRegistryStatus, policy.KindErased}
	for _, k := range kinds {
		if _, ok := report.Explain(k); !ok {
			t.Errorf("kind %q is not explained", k)
		}
	}
	if got := report.Kinds(); len(got) != len(kinds) {
		t.Errorf("%d kinds explained, %d reported: %q", len(got), len(kinds), got)
	}
	raw, err := os.ReadFile(policyDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i, j := strings.Index(doc, kindsStart), strings.Index(doc, kindsEnd)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the markers of the finding kinds", policyDoc)
	}
	want := doc[:i+len(kindsStart)] + "\n" + report.KindsMarkdown() + "\n" + doc[j:]
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		os.WriteFile(policyDoc, []byte(want), 0o644)
		doc = want
	}
	if doc != want {
		t.Errorf("%s's finding kinds differ from internal/report/kinddocs.go (run with -update)", policyDoc)
	}
	anchors := map[string]int{}
	for _, h := range regexp.MustCompile(`(?m)^#+ (.*)$`).FindAllStringSubmatch(doc, -1) {
		anchors[githubAnchor(h[1])]++
	}
	for _, k := range report.Kinds() {
		if a := report.DocsAnchor(k); anchors[a] != 1 {
			t.Errorf("anchor #%s is in %s %d times, want once", a, policyDoc, anchors[a])
		}
		d, _ := report.Explain(k)
		var buf bytes.Buffer
		report.WriteExplain(&buf, d)
		plain := strings.Join(strings.Fields(buf.String()), " ")
		for _, part := range []string{d.What, d.Do, report.DocsLink(k)} {
			if !strings.Contains(plain, strings.Join(strings.Fields(part), " ")) {
				t.Errorf("explain %s lacks %q", k, part)
			}
			if part != report.DocsLink(k) && !strings.Contains(doc, part) {
				t.Errorf("the docs of %s lack %q", k, part)
			}
		}
	}
}

// githubAnchor is the anchor GitHub gives a Markdown heading: lower
// case, punctuation other than - and _ dropped, spaces to dashes.
func githubAnchor(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	var b strings.Builder
	for _, r := range h {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestGithubAnchor(t *testing.T) {
	for h, want := range map[string]string{"Kind `persistence-write`": "kind-persistence-write", "Harm in itself: no baseline": "harm-in-itself-no-baseline"} {
		if got := githubAnchor(h); got != want {
			t.Errorf("githubAnchor(%q) = %q, want %q", h, got, want)
		}
	}
}
