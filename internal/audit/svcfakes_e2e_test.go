package audit_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

var svcFixture = filepath.Join("..", "..", "testdata", "fixtures", "svc-client")

// svcModes are the fixture's services: PostgreSQL, MySQL, Redis, SMTP
// with STARTTLS on 587 and implicit TLS on 465.
var svcModes = []string{"pg", "mysql", "redis", "smtp", "smtps"}

// TestServiceFakesAnswerRealClients runs real npm clients (pg, mysql2,
// ioredis, nodemailer) against the sink's service fakes: each connects,
// logs in and gets a plausible answer (tables, rows, a stored value, an
// accepted mail: checked by the fixture, which reports through its tool),
// and every canary it sends, in a query, a parameter, a stored value, a
// mail or as a password, is found with the service and operation that
// carried it. The control does the same with harmless values and has no
// canary hit at all.
func TestServiceFakesAnswerRealClients(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want []string // canary hits: "CANARY EVIDENCE"
	}{
		{"canaries", svcModes, []string{
			"env:OPENAI_API_KEY postgres auth db.fixture.example:5432 (password)",
			"env:GITHUB_TOKEN postgres query db.fixture.example:5432",
			"env:AWS_SECRET_ACCESS_KEY mysql auth db.fixture.example:3306 (password)",
			"env:NPM_TOKEN mysql query db.fixture.example:3306",
			"env:SLACK_BOT_TOKEN redis auth cache.fixture.example:6379 (password)",
			"env:STRIPE_SECRET_KEY redis command cache.fixture.example:6379",
			"env:ANTHROPIC_API_KEY smtp auth smtp.fixture.example:587 (password)",
			"env:GH_TOKEN smtp mail smtp.fixture.example:587",
			"env:ANTHROPIC_API_KEY smtp auth smtp.fixture.example:465 (password)",
			"env:GH_TOKEN smtp mail smtp.fixture.example:465",
		}},
		{"control", append([]string{"control"}, svcModes...), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := runResult(t, audit.Options{Target: svcFixture, Args: tc.args})
			man := res.Manifest
			if man.Outcome.Status != m.StatusOK {
				t.Fatalf("outcome %+v\nstderr: %s", man.Outcome, res.Stderr)
			}
			for _, svc := range svcModes {
				if !strings.Contains(res.Stderr, "svc-client: "+svc+" ok") {
					t.Errorf("%s: the client got no plausible answer; stderr:\n%s", svc, res.Stderr)
				}
			}
			if c, ok := callsByName(man)["svc_result"]; !ok || c.Outcome != m.CallOK {
				t.Errorf("svc_result call %+v", c)
			}
			got := map[string]bool{}
			for _, p := range man.Phases {
				for _, h := range p.Canaries {
					if h.How == m.HowSent {
						got[h.Canary+" "+h.Evidence] = true
					}
				}
			}
			for _, w := range tc.want {
				if !got[w] {
					t.Errorf("no canary hit %q; have %v", w, keys(got))
				}
			}
			if tc.want == nil && len(got) > 0 {
				t.Errorf("the control sent canaries: %v", keys(got))
			}
			for _, ev := range res.Evidence {
				for _, h := range ev.Headers {
					if h[0] == "password" && !strings.HasPrefix(h[1], "<") {
						t.Errorf("%s evidence shows a password: %q", ev.Kind, h[1])
					}
				}
			}
		})
	}
}
