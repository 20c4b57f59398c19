package policy

import (
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// listChangeFindings judges what the server offered differently once it
// had been used. A client reads the lists again and shows the model the
// new text, so a description or schema that changes mid-session is a rug
// pull inside one run (high); an item offered only after the calls is
// medium, and high when its text carries instructions for the model.
func listChangeFindings(man *m.Manifest) []Finding {
	var out []Finding
	for _, c := range man.ListChanges {
		item := strings.TrimSuffix(strings.ReplaceAll(c.List, "resource_templates", "resource template"), "s")
		subject := item + " " + c.Name
		if c.Field == "added" {
			sev := Medium
			if len(InjectionSignsIn(c.Diff, TextContext{Declared: true, Own: ownNames(man)})) > 0 {
				sev = High
			}
			summary := subject + " was offered only after the calls"
			if c.Between == m.BetweenRuns {
				summary = subject + " was offered only in a later run"
			}
			out = append(out, Finding{Severity: sev, Kind: KindTool, Subject: subject, Summary: summary, Evidence: c.Diff})
			continue
		}
		when := "during the session"
		if c.Between == m.BetweenRuns {
			when = "between runs"
		}
		out = append(out, Finding{Severity: High, Kind: KindTool, Subject: subject,
			Summary: "the " + strings.ReplaceAll(c.Field, "_", " ") + " of " + subject + " changed " + when, Evidence: c.Diff})
	}
	return out
}
