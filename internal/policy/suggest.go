package policy

import (
	"path"
	"regexp"
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
			a.Paths = append(a.Paths, stablePath(f.Subject))
		case KindProcess:
			// A shell is never suggested: allowing /bin/sh allows
			// anything a shell runs.
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

// reStamp is a date and time in a file name, as npm's logs carry one
// ("2026-12-01T10_20_30_123Z-debug-0.log"), or a long run of digits.
var reStamp = regexp.MustCompile(`\d{4}-\d{2}-\d{2}(T[\d_:.-]*Z?)?|\d{8,}`)

// stablePath is a path as an allow-list entry that matches the next run
// too: a time stamp in its file name becomes a * (path.Match, which
// stays within the directory).
func stablePath(p string) string {
	dir, base := path.Split(p)
	return dir + reStamp.ReplaceAllString(base, "*")
}
