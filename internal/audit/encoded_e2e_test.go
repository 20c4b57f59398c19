package audit_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// encodedTricks are the fixture's enc-* modes: the canary each sends, where
// the hit is (a part of its evidence), and the encoding it is found in with
// the trick and in the control (enc-plain-*).
var encodedTricks = []struct {
	mode, canary, where, trick, plain string
}{
	{"gzip", "env:GITHUB_TOKEN", "gz.fixture.example/gzip", "gzip+raw", "raw"},
	{"deflate", "env:GH_TOKEN", "gz.fixture.example/deflate", "deflate+raw", "raw"},
	{"br", "env:NPM_TOKEN", "gz.fixture.example/br", "br+raw", "raw"},
	{"gzip-bare", "env:SLACK_BOT_TOKEN", "gz.fixture.example/bare", "gzip+raw", "raw"},
	{"dns-split", "env:AWS_SECRET_ACCESS_KEY", "split.example", "hex", "hex"},
	{"prefix", "env:STRIPE_SECRET_KEY", "t.fixture.example/p", "prefix", "raw"},
	{"hexfrag", "env:ANTHROPIC_API_KEY", "h.hexfrag.example", "hex-fragment", "hex"},
	{"reversed", "env:OPENAI_API_KEY", "r.fixture.example/rev", "reversed", "raw"},
	{"broken", "env:AWS_ACCESS_KEY_ID", "b.fixture.example/brk", "split", "raw"},
	{"tcp-late", "env:GITHUB_TOKEN", "tcp 198.51.100.8:5555", "raw", "raw"},
	{"udp-split", "env:NPM_TOKEN", "udp 192.0.2.98:9998", "raw", "raw"},
}

// TestEncodedExfiltration runs every encoding trick of the fixture in one
// default audit, and their controls in another: each canary is found where
// it was sent, in the expected encoding, and is a critical finding.
func TestEncodedExfiltration(t *testing.T) {
	t.Parallel()
	for _, variant := range []string{"enc-", "enc-plain-"} {
		t.Run(strings.TrimSuffix(variant, "-"), func(t *testing.T) {
			var args []string
			for _, tc := range encodedTricks {
				args = append(args, variant+tc.mode)
			}
			man := run(t, audit.Options{Target: fixture, Args: args})
			if man.Outcome.Status != m.StatusOK {
				t.Fatalf("outcome %+v", man.Outcome)
			}
			st := man.PhaseByName(m.PhaseStartup)
			fs := findings(man)
			for _, tc := range encodedTricks {
				want := tc.trick
				if variant == "enc-plain-" {
					want = tc.plain
				}
				var found bool
				for _, h := range st.Canaries {
					found = found || h.Canary == tc.canary && h.How == m.HowSent && h.Encoding == want && strings.Contains(h.Evidence, tc.where)
				}
				if !found {
					t.Errorf("%s%s: no %s hit of %s at %s; hits: %v", variant, tc.mode, want, tc.canary, tc.where, keys(canaryHits(st)))
				}
				// Findings are one per canary and how (the hits above say
				// where each went).
				if !hasFinding(fs, policy.KindCanary, policy.Critical, tc.canary+" sent") {
					t.Errorf("%s%s: no critical canary finding for %s", variant, tc.mode, tc.canary)
				}
			}
		})
	}
}

func hasCriticalAt(fs []policy.Finding, subject, where string) bool {
	for _, f := range fs {
		if f.Kind == policy.KindCanary && f.Severity == policy.Critical && f.Subject == subject && strings.Contains(f.Evidence, where) {
			return true
		}
	}
	return false
}

// TestCanaryToAllowedHostStaysCritical: a canary sent to a host the
// configuration allows, or to the package's own service (its homepage's
// domain), is still a critical finding; only the host findings change. The
// control sends the same canaries to hosts that are neither.
func TestCanaryToAllowedHostStaysCritical(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"server.js", "package.json"} {
		b, err := os.ReadFile(filepath.Join(fixture, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "package.json" {
			b = []byte(strings.Replace(string(b), `"license"`, `"homepage": "https://www.vault.example/",`+"\n  \"license\"", 1))
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pol := policy.Policy{FailOn: policy.DefaultFailOn, Allow: policy.Allow{Hosts: []string{"*.allowed.example"}}}
	for _, tc := range []struct {
		mode, github, npm string
	}{
		{"enc-allowed", "api.vault.example", "telemetry.allowed.example"},
		{"enc-plain-allowed", "api.other.example", "telemetry.other.example"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			man := run(t, audit.Options{Target: dir, Args: []string{tc.mode}})
			if tc.mode == "enc-allowed" && !strings.Contains(strings.Join(man.Target.Service, " "), "vault.example") {
				t.Fatalf("service domains %v: homepage not read", man.Target.Service)
			}
			fs := policy.Evaluate(man, pol)
			for canary, host := range map[string]string{"env:GITHUB_TOKEN": tc.github, "env:NPM_TOKEN": tc.npm} {
				if !hasCriticalAt(fs, canary+" sent", host) {
					t.Errorf("%s sent to %s: no critical finding in %v", canary, host, fs)
				}
			}
			if !policy.Failed(fs, pol.FailOn) {
				t.Error("the audit passes")
			}
		})
	}
}
