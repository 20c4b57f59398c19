package policy

import (
	"slices"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/hosts"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// SuggestAllow is the allow-list that would accept what a server was seen
// doing — its hosts, the paths of its file findings, its programs — for a
// user to review and paste. Nothing harmful goes in (canaries, persistence,
// credential reads, text aimed at the model cannot be allow-listed
// anyway), no host that received a planted canary, and no host that is not
// a plain public name (hosts.Valid).
func SuggestAllow(man *m.Manifest, fs []Finding) Allow {
	tainted := map[string]bool{}
	for _, ph := range man.Phases {
		for _, h := range ph.Canaries {
			if !h.Given && h.How == m.HowSent {
				tainted[sentTo(h.Evidence)] = true
			}
		}
	}
	var a Allow
	for _, f := range fs {
		if Harmful(f) || f.Kind == KindCanary || f.Kind == KindCredential {
			continue
		}
		switch f.Kind {
		case KindHost, KindTelemetry:
			if h := strings.ToLower(f.Subject); !tainted[h] && hosts.Valid(h) == nil {
				a.Hosts = append(a.Hosts, h)
			}
		case KindSystemFile, KindWrite:
			a.Paths = append(a.Paths, f.Subject)
		case KindProcess, KindShell:
			a.Processes = append(a.Processes, f.Subject)
		}
	}
	for _, l := range []*[]string{&a.Hosts, &a.Paths, &a.Processes} {
		slices.Sort(*l)
		*l = slices.Compact(*l)
	}
	return a
}

// Empty reports an allow-list with nothing in it.
func (a Allow) Empty() bool { return len(a.Hosts)+len(a.Paths)+len(a.Processes) == 0 }
