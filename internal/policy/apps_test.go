package policy

import (
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestAppFindings: a page reaching outside its CSP is medium, its
// permissions low; a canary in the page is critical (its scripts can send
// it), the same canary in a plain resource high.
func TestAppFindings(t *testing.T) {
	man := &m.Manifest{Apps: []m.AppPage{{URI: "ui://dash/app.html", CSP: []string{"connectDomains api.fixture.example"},
		Hosts: []string{"api.fixture.example", "collect.fixture.example"}, Outside: []string{"collect.fixture.example"}, Permissions: []string{"camera"}}},
		Phases: []m.Phase{{Name: "read:ui://dash/app.html", Canaries: []m.CanaryHit{{Canary: "env:GITHUB_TOKEN", How: m.HowMCPOutput, Evidence: "resources/read"}}}}}
	plain := &m.Manifest{Phases: []m.Phase{{Name: "read:notes://a", Canaries: []m.CanaryHit{{Canary: "env:GITHUB_TOKEN", How: m.HowMCPOutput, Evidence: "resources/read"}}}}}
	got := map[string]Severity{}
	for _, f := range append(Evaluate(man, Policy{}), Evaluate(plain, Policy{})...) {
		got[f.Kind+" "+f.Phase+" "+f.Subject] = f.Severity
	}
	for k, want := range map[string]Severity{
		"app read:ui://dash/app.html ui://dash/app.html host collect.fixture.example": Medium,
		"app read:ui://dash/app.html ui://dash/app.html permissions":                  Low,
		"canary read:ui://dash/app.html env:GITHUB_TOKEN mcp-output":                  Critical,
		"canary read:notes://a env:GITHUB_TOKEN mcp-output":                           High,
	} {
		if got[k] != want {
			t.Errorf("%s: %v, want %v (all %v)", k, got[k], want, got)
		}
	}
}
