package policy

import (
	"path"
	"slices"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/hosts"
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
//
// What a call asked for is the call's, however far each run got with it
// (a clone that failed at once in the traced run, its target directory
// not empty, reached its host in the witness run): a host only the witness
// run contacted, in calls whose arguments named it, is low; a decoy
// credential file only the witness run read in such a call, ~/.netrc or
// ~/.git-credentials, is the lookup of that host's credentials (git and
// curl read them), medium as the read is in a traced run; any other decoy
// stays critical. A host the witness run contacted and the primary did
// not, that another traced run (the calibration or secrets run) contacted
// too, was not hidden from the tracer: medium, since only the primary
// run's contacts are judged by the ordinary rules (a server that sends
// at random is seen in some runs only); a canary it carried is its own
// difference and stays critical. A workspace decoy's value only the witness run left
// in a repository's store (.git), where the traced run's trace shows git's
// own processes writing that store, is the repository keeping its work
// tree (the witness run sees files, not who wrote them): low.
func witnessFindings(man *m.Manifest, egress *egressContext) []Finding {
	var out []Finding
	var own map[string]bool
	named := witnessNamedHosts(man, egress)
	probeHosts := probeMarkerHosts(man)
	gitStore := gitWroteStore(man)
	for _, d := range man.Witness {
		factors := ""
		if d.Factors != "" {
			factors = " (the runs differed in: " + d.Factors + ")"
		}
		phases := evidencePhases(d.Witness)
		if d.Only == "" && probeHosts[d.Subject] {
			out = append(out, Finding{Severity: Low, Kind: KindEnvironment, Phase: m.PhaseWitness, Subject: d.Subject,
				Summary:  "contacted the host of one of the audit's own probes only in the witness run (the traced run skipped the call or did not get as far)" + factors,
				Evidence: "traced run: " + d.Traced + "; witness run: " + d.Witness})
			continue
		}
		if d.Only == "" && strings.HasPrefix(d.Subject, "host ") && d.AlsoTraced != "" {
			out = append(out, Finding{Severity: Medium, Kind: KindEnvironment, Phase: m.PhaseWitness, Subject: d.Subject,
				Summary:  "contacted a host the primary run did not, but the " + d.AlsoTraced + " did, traced as well: not hidden from the tracer (a timer, a slower start)" + factors,
				Evidence: "traced run: " + d.Traced + "; witness run: " + d.Witness + "; also in the " + d.AlsoTraced})
			continue
		}
		if d.Only == "" && strings.HasPrefix(d.Subject, "host ") && named[d.Subject] {
			out = append(out, Finding{Severity: Low, Kind: KindEnvironment, Phase: m.PhaseWitness, Subject: d.Subject,
				Summary:  "contacted a host the call named only in the witness run (the call got further there)" + factors,
				Evidence: "traced run: " + d.Traced + "; witness run: " + d.Witness})
			continue
		}
		if d.Only == "" && hostCredentialRead(d.Subject) && len(phases) > 0 &&
			!slices.ContainsFunc(phases, func(p string) bool { return !named[namedPhase+p] }) {
			out = append(out, Finding{Severity: Medium, Kind: KindCanary, Phase: m.PhaseWitness, Subject: d.Subject,
				Summary:  "read a decoy credential file only in the witness run, in a call that reached the host it named there (a lookup of that host's credentials)" + factors,
				Evidence: "traced run: " + d.Traced + "; witness run: " + d.Witness})
			continue
		}
		if d.Only == "" && gitStore && strings.HasPrefix(d.Subject, "canary file:<workspace>/") && strings.HasSuffix(d.Subject, " written to a file") &&
			inGitStore(d.Witness) {
			out = append(out, Finding{Severity: Low, Kind: KindEnvironment, Phase: m.PhaseWitness, Subject: d.Subject,
				Summary:  "a workspace decoy's value in the repository's store only in the witness run, where the traced run's git wrote that store" + factors,
				Evidence: "traced run: " + d.Traced + "; witness run: " + d.Witness})
			continue
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

// hostCredentials are the decoy files a client reads to log in to a host
// it was asked to reach (git and curl: ~/.netrc, git's credential store).
var hostCredentials = []string{"~/.netrc", "~/.git-credentials"}

// hostCredentialRead: the difference is a read of one of hostCredentials.
func hostCredentialRead(subject string) bool {
	for _, f := range hostCredentials {
		if subject == "canary file:"+f+" read" {
			return true
		}
	}
	return false
}

// probeMarkerHosts are the hosts the audit's URL probes point at, by
// registrable domain, as "host H": a page of the probe's own that no
// public resolver knows (argsynth.ProbeDomain). The witness run has its
// own call budget, so it may make a probe the traced run skipped
// (chrome-devtools-mcp's navigate_page, whose probe URL the witness run
// loaded: a critical anti-analysis finding); what the probe caused is the
// audit's doing, judged as a probe in the run that made it.
func probeMarkerHosts(man *m.Manifest) map[string]bool {
	out := map[string]bool{}
	for _, c := range man.Calls {
		for _, p := range c.Probes {
			for _, mk := range p.Markers {
				if h, ok := strings.CutPrefix(mk, "dns "); ok {
					out["host "+hosts.Registrable(h)] = true
				}
			}
		}
	}
	return out
}

// namedPhase prefixes a phase in witnessNamedHosts' set.
const namedPhase = "phase "

// witnessNamedHosts are the hosts only the witness run contacted whose
// every contact was in a call whose arguments named it (the host, or
// another of its registrable domain), as "host H", and those calls'
// phases, as namedPhase+phase.
func witnessNamedHosts(man *m.Manifest, egress *egressContext) map[string]bool {
	out := map[string]bool{}
	for _, d := range man.Witness {
		h, ok := strings.CutPrefix(d.Subject, "host ")
		if d.Only != "" || !ok {
			continue
		}
		phases := evidencePhases(d.Witness)
		all := len(phases) > 0
		for _, p := range phases {
			all = all && isCallPhase(p) && callNamedHost(egress.byCall[p], h)
		}
		if all {
			out[d.Subject] = true
			for _, p := range phases {
				out[namedPhase+p] = true
			}
		}
	}
	return out
}

// callNamedHost: one of a call's hosts is reg or of its registrable domain.
func callNamedHost(byCall map[string]bool, reg string) bool {
	for h := range byCall {
		if h == reg || hosts.Registrable(h) == reg {
			return true
		}
	}
	return false
}

// evidencePhases are the phases a witness difference's evidence names
// ("call:git_clone#4: GET kb.example; call:git_clone#4: looked up …").
func evidencePhases(ev string) []string {
	var out []string
	for _, part := range strings.Split(ev, "; ") {
		if p, _, ok := strings.Cut(part, ": "); ok && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// gitWroteStore: the traced run ran git, and wrote a repository's
// objects in the workspace.
func gitWroteStore(man *m.Manifest) bool {
	ranGit, wrote := false, false
	for _, ph := range man.Phases {
		for _, p := range ph.Processes {
			ranGit = ranGit || path.Base(p.Path) == "git"
		}
		for _, f := range ph.Files {
			wrote = wrote || strings.HasPrefix(f.Path, "<workspace>/") && strings.Contains(f.Path, "/.git/objects/") &&
				(f.Access == m.AccessWrite || f.Access == m.AccessCreate) && f.Result == m.ResultOK
		}
	}
	return ranGit && wrote
}

// inGitStore: every place of the evidence is in a repository's object
// store in the workspace (not its config or hooks, which git runs).
func inGitStore(ev string) bool {
	parts := strings.Split(ev, "; ")
	for _, part := range parts {
		_, place, _ := strings.Cut(part, ": ")
		if !strings.HasPrefix(place, "<workspace>/") || !strings.Contains(place, "/.git/objects/") {
			return false
		}
	}
	return len(parts) > 0
}
