package policy

import (
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// witnessFindings report what the server did only when it was not
// traced. Staying dormant under the tracer is a choice the server made
// to hide, so each difference is critical, whatever the thing itself.
//
// A home file the witness run changed in the server's own data directory
// under the cache and data directories (~/.cache, ~/.local/share,
// ~/.local/state: a browser profile, a cache named after the package) is
// medium: a store only the server reads, whose files a browser writes when
// its timers fire (@playwright/mcp's profile gained "Trust Tokens" in one
// run and not the other); what the server does with it later is seen
// where it does it. Not a dot-directory the server's name happens to
// match (an "mcp-ssh" does not own ~/.ssh), nor a place another program
// loads code from.
func witnessFindings(man *m.Manifest) []Finding {
	var out []Finding
	var own map[string]bool
	for _, d := range man.Witness {
		factors := ""
		if d.Factors != "" {
			factors = " (the runs differed in: " + d.Factors + ")"
		}
		if d.Only == "traced" {
			out = append(out, Finding{Severity: Low, Kind: KindEnvironment, Phase: m.PhaseWitness, Subject: d.Subject,
				Summary:  "depends on the environment: " + d.Subject + " only in the traced run" + factors,
				Evidence: "traced run: " + d.Traced + "; witness run: nothing"})
			continue
		}
		if p, ok := strings.CutPrefix(strings.TrimSuffix(d.Subject, " changed"), "home file "); ok {
			if own == nil {
				own = ownTokens(man)
			}
			if ownCache(own, p) {
				out = append(out, Finding{Severity: Medium, Kind: KindEnvironment, Phase: m.PhaseWitness, Subject: d.Subject,
					Summary:  "changed its own data only in the witness run: " + p + factors,
					Evidence: "traced run: " + d.Traced + "; witness run: " + d.Witness})
				continue
			}
		}
		out = append(out, Finding{Severity: Critical, Kind: KindAntiAnalysis, Phase: m.PhaseWitness, Subject: d.Subject,
			Summary:  "behaves differently when traced or in another environment: " + d.Subject + " only in the witness run" + factors,
			Evidence: "traced run: " + d.Traced + "; witness run: " + d.Witness})
	}
	return out
}

// ownCache: a home path in the server's own data directory under the
// cache and data directories, and no place another program loads code
// from.
func ownCache(own map[string]bool, p string) bool {
	under := strings.HasPrefix(p, "~/.cache/") || strings.HasPrefix(p, "~/.local/share/") || strings.HasPrefix(p, "~/.local/state/")
	return under && ownData(own, p) && loadPlace(p, false) == ""
}
