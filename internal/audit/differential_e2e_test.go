package audit_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

var differentialFixture = filepath.Join("..", "..", "testdata", "fixtures", "differential-server")

// differentialRun audits the differential fixture in the modes given,
// with the runs of other secrets (and the witness run when asked), as
// audit, check, batch and the Action do by default.
func differentialRun(t *testing.T, witness bool, canaryEnv []string, modes ...string) *m.Manifest {
	t.Helper()
	man := run(t, audit.Options{Target: differentialFixture, Args: []string{strings.Join(modes, ",")},
		Differential: true, Witness: witness, CanaryEnv: canaryEnv})
	if man.Outcome.Status != m.StatusOK {
		t.Fatalf("outcome %+v", man.Outcome)
	}
	return man
}

// derivedTo is the secret-derived finding about a destination, nil when
// there is none.
func derivedTo(fs []policy.Finding, channel, dest string) *policy.Finding {
	for i, f := range fs {
		if f.Kind == policy.KindDerived && strings.HasPrefix(f.Subject, channel+" ") && strings.Contains(f.Subject, dest) {
			return &fs[i]
		}
	}
	return nil
}

// TestSecretsLeaveInAnyEncoding: a credential XORed and posted, split over
// unrelated domains, carried in the DNS query type or in the choice of
// domains, hashed into a header, XORed into a datagram, reversed into a
// workspace file, spelled as character codes, carried only in the lengths
// of random bodies, XORed with a key made of the day, and hashed into a Markdown image URL of a tool result —
// none matches the canary finder, each follows the planted values and is
// secret-derived: critical when sent, high when returned to the client.
// TestPlainTheftControls is the same harm done plainly.
func TestSecretsLeaveInAnyEncoding(t *testing.T) {
	t.Parallel()
	man := differentialRun(t, false, nil, "xor-post", "split-domains", "dns-type", "domain-choice", "header-hash", "udp-xor", "file-write", "md-image", "decimal-codes", "length-code", "day-masked")
	fs := findings(man)
	for _, tc := range []struct {
		channel, dest string
		sev           policy.Severity
	}{
		{"http", "telemetry-hub.example POST", policy.Critical},
		{"dns", "api-c.example", policy.Critical},
		{"dns", "static-d.test", policy.Critical},
		{"dns", "typed.example", policy.Critical},
		{"dns", ".example", policy.Critical}, // the choice of domains: one finding, the places its evidence
		{"http", "stats.example GET", policy.Critical},
		{"http", "numbers.example POST", policy.Critical},
		{"http", "sizes.example POST", policy.Critical},
		{"http", "masked.example POST", policy.Critical},
		{"udp", "datagrams", policy.Critical},
		{"file", "<workspace>/.cache/state.json", policy.Critical},
		{"result", "tools/call", policy.High},
	} {
		f := derivedTo(fs, tc.channel, tc.dest)
		if f == nil {
			t.Errorf("%s to %s: not secret-derived; derived %+v", tc.channel, tc.dest, man.Derived)
			continue
		}
		if f.Severity != tc.sev {
			t.Errorf("%s to %s: %s, want %s (%s)", tc.channel, tc.dest, f.Severity, tc.sev, f.Summary)
		}
	}
	if !hasDerivedPresence(man, "where it goes follows the planted values") {
		t.Errorf("the choice of domains is not one that follows the planted values: %+v", man.Derived)
	}
	for _, f := range fs {
		if f.Kind == policy.KindCanary {
			t.Errorf("the canary finder matched an encoding it was not meant to: %+v", f)
		}
	}
	if man.Run.Differential != "compared" || len(man.Run.Variants) != 3 {
		t.Errorf("runs: differential %q, variants %+v", man.Run.Differential, man.Run.Variants)
	}
	b, _ := m.Encode(man)
	if strings.Contains(string(b), "sk-ant-") || strings.Contains(string(b), "ghp_") {
		t.Error("the manifest carries a planted value")
	}
}

func hasDerivedPresence(man *m.Manifest, presence string) bool {
	for _, d := range man.Derived {
		if d.Presence == presence {
			return true
		}
	}
	return false
}

// TestPlainTheftControls: the same harm done plainly is the canary
// finding it always was, and secret-derived besides; requests signed
// over their time with a planted secret are secret-derived.
func TestPlainTheftControls(t *testing.T) {
	t.Parallel()
	man := differentialRun(t, false, nil, "plain-post", "plain-result", "clock-sign-secret", "codes-history", "flag-bits", "bit-hosts", "key-secret")
	fs := findings(man)
	var sent, shown bool
	for _, f := range fs {
		sent = sent || f.Kind == policy.KindCanary && f.Severity == policy.Critical && strings.HasSuffix(f.Subject, " sent")
		shown = shown || f.Kind == policy.KindCanary && f.Severity == policy.High && strings.HasSuffix(f.Subject, " mcp-output")
	}
	if !sent || !shown {
		t.Errorf("canary sent %v, returned %v; findings:", sent, shown)
		logFindings(t, fs)
	}
	if f := derivedTo(fs, "http", "plain.example POST"); f == nil || f.Severity != policy.Critical {
		t.Errorf("the plain post is not secret-derived: %+v", f)
	}
	// The control of clock-sign: its requests signed with a planted
	// secret instead of the credential it is given.
	if f := derivedTo(fs, "http", "signed.example POST"); f == nil || f.Severity != policy.Critical || !strings.Contains(f.Evidence, "header.authorization") {
		t.Errorf("requests signed with a planted secret are not secret-derived: %+v", f)
	}
	// The secret as a key, its value true: a key renamed, not a flag a
	// run added; and the label that names the field names no secret.
	if f := derivedTo(fs, "http", "keys.example POST"); f == nil || f.Severity != policy.Critical {
		t.Errorf("the secret as a key is not secret-derived at critical: %+v", f)
	}
	if b, _ := m.Encode(man); strings.Contains(string(b), "sk-ant-") || strings.Contains(string(b), "ghp_") {
		t.Error("the manifest carries a planted value")
	}
	// The secret's bits in the names of lookups, each name the secrets
	// run's alone: not a shift in time.
	if f := derivedTo(fs, "dns", "bits.example"); f == nil || f.Severity != policy.Critical {
		t.Errorf("the secret's bits as names are not secret-derived at critical: %+v", f)
	}
	// The secret's bits as flags present or not in telemetry: more flags
	// than a background load sets.
	if f := derivedTo(fs, "http", "flags.example POST"); f == nil || f.Severity != policy.Critical {
		t.Errorf("the secret's bits as flags are not secret-derived at critical: %+v", f)
	}
	// The control of noisy-siblings: every duration of the history a
	// character code of the secret.
	if f := derivedIn(fs, "result", "call:echo"); f == nil || f.Severity != policy.High {
		t.Errorf("a history of the secret's character codes is not secret-derived at high: %+v", f)
	}
}

// TestSecretAmongNoisySiblings: a result that lists the durations of
// timed requests, every other one a character code of the secret, hides
// the secret among numbers of the same kind that vary by themselves; it
// follows the secret in more of them than chance agreements would, and
// stays secret-derived. The control (every duration a character code)
// is TestPlainTheftControls's. Memory figures made of the secret (the
// control of memory-report) are secret-derived too.
func TestSecretAmongNoisySiblings(t *testing.T) {
	t.Parallel()
	man := differentialRun(t, false, nil, "noisy-siblings", "memory-secret")
	for _, c := range man.Calls {
		t.Logf("call %s %s %s", c.Phase, c.Outcome, c.Detail)
	}
	if f := derivedIn(findings(man), "result", "call:echo"); f == nil || f.Severity != policy.High {
		t.Errorf("a secret among noisy durations is not secret-derived at high: %+v; derived %+v", f, man.Derived)
	}
	// The control of memory-report: its figures made of the secret.
	if f := derivedIn(findings(man), "result", "call:render"); f == nil || f.Severity != policy.High {
		t.Errorf("memory figures made of the secret are not secret-derived at high: %+v", f)
	}
}

// derivedIn is the secret-derived finding of a channel in a call (its
// phase's prefix; findings over several calls are one, with Calls),
// nil when there is none.
func derivedIn(fs []policy.Finding, channel, phase string) *policy.Finding {
	for i, f := range fs {
		if f.Kind != policy.KindDerived || !strings.HasPrefix(f.Subject, channel+" ") {
			continue
		}
		for _, p := range append([]string{f.Phase}, f.Calls...) {
			if strings.HasPrefix(p, phase) {
				return &fs[i]
			}
		}
	}
	return nil
}

// TestBenignNoiseStaysClean: a memory report (desktop-commander's
// get_config) and telemetry that carries a flag once a background load
// has ended (desktop-commander's) are no difference. Apart from TestBenignVariationStaysClean's history of
// timings: the chance agreements noise may explain are at most four in an
// audit, all kinds together.
func TestBenignNoiseStaysClean(t *testing.T) {
	t.Parallel()
	man := differentialRun(t, false, nil, "late-flag", "memory-report")
	for _, f := range findings(man) {
		if f.Kind == policy.KindDerived && f.Severity > policy.Low {
			t.Errorf("benign noise judged %s: %s (%s)", f.Severity, f.Summary, f.Evidence)
		}
	}
	for _, d := range man.Derived {
		if d.Presence == "" && d.Dest != "flags.example POST" {
			t.Errorf("derived %+v", d)
		}
	}
}

// TestBenignVariationStaysClean: telemetry with a random id and a
// timestamp, a request signed with the credential the server is given,
// requests signed with it over their date (the runs with the same secrets
// start seconds apart on the server's clock, so the date and its
// signature never agree between them by chance), an update check that fires only
// years ahead, a child that ends with the server, a history of timed
// requests whose durations agree by chance in a few entries (okx-trade-mcp's
// trade_get_history), and files returned to a caller who named them are no
// difference: nothing at or above high, nothing derived.
func TestBenignVariationStaysClean(t *testing.T) {
	t.Parallel()
	man := differentialRun(t, true, []string{"DIFF_API_KEY"}, "telemetry", "given-sign", "clock-sign", "update-check", "child-exits", "timings")
	fs := findings(man)
	for _, f := range fs {
		if f.Severity >= policy.High || f.Kind == policy.KindDerived && f.Severity > policy.Low || f.Kind == policy.KindAntiAnalysis && f.Severity >= policy.Medium {
			t.Errorf("benign variation judged %s %s: %s (%s)", f.Severity, f.Kind, f.Summary, f.Evidence)
		}
	}
	for _, d := range man.Derived {
		// One side alone (a timer one run ended before) is a low note;
		// nothing that follows the values field by field or by place.
		if d.Presence == "" || d.Presence == "where it goes follows the planted values" {
			t.Errorf("derived %+v", d)
		}
	}
	readOK := false
	for _, c := range man.Calls {
		readOK = readOK || c.Name == "read_file" && c.Outcome == m.CallOK && strings.Contains(string(c.Args), audit.Workspace)
	}
	if !readOK {
		t.Errorf("read_file was not called on a workspace file: %+v", man.Calls)
	}
	if man.Run.WitnessRun != "ran" || len(man.Run.Variants) != 4 {
		t.Errorf("runs %q %+v", man.Run.WitnessRun, man.Run.Variants)
	}
	shift := map[string]int{}
	for _, v := range man.Run.Variants {
		shift[v.Name] = v.ClockShiftDays
	}
	if p := shift["primary run"]; p < 1 || shift["calibration run"] != p || shift["secrets run"] != p || shift["witness run"] != 0 {
		t.Errorf("clock shifts (days) %v", shift)
	}
}

// TestWorkspaceUploaded: every workspace file sent to the package's own
// homepage is the user's files sent where nobody supplied them, whether
// as it is (the content canaries) or gzipped and base64-encoded (it
// follows the files' contents, which the secrets run varies). The upload
// is made at startup, and on a loaded machine lands in the window of the
// first call, read_file: only the file that call named is the caller's
// there, every other file is high.
func TestWorkspaceUploaded(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"upload-plain", "upload-encoded"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			man := differentialRun(t, false, nil, mode)
			fs := findings(man)
			f := derivedTo(fs, "http", "differential-server.example POST")
			if f == nil || f.Severity < policy.High {
				t.Errorf("the upload is not derived at high: %+v; derived %+v", f, man.Derived)
			}
			if mode != "upload-plain" {
				return
			}
			high := 0
			for _, f := range fs {
				if f.Kind != policy.KindUserFile {
					continue
				}
				file := strings.TrimPrefix(strings.Fields(f.Subject)[0], "content:<workspace>/")
				named := false
				for _, c := range man.Calls {
					named = named || c.Phase == f.Phase && strings.Contains(string(c.Args), file)
				}
				switch {
				case f.Severity == policy.High:
					high++
				case !named:
					t.Errorf("a file no call named, sent, is %s: %s", f.Severity, f.Subject)
				}
			}
			if high < 4 {
				t.Errorf("the plain upload is %d high user-file findings; findings:", high)
				logFindings(t, fs)
			}
		})
	}
}

// TestDormantOnAuditConstants: a theft that waits for another host name,
// user and home, answer range, client, launch count or machine id than
// the audit's own shows in the witness run, which has others: a critical
// difference per place it went. Doing it always (the control) is the
// plain canary finding and no difference.
func TestDormantOnAuditConstants(t *testing.T) {
	t.Parallel()
	keys := []string{"host", "user", "range", "client", "launch", "machine"}
	var dormant, always []string
	for _, k := range keys {
		dormant, always = append(dormant, "dormant-"+k), append(always, "always-"+k)
	}
	t.Run("dormant", func(t *testing.T) {
		t.Parallel()
		man := run(t, audit.Options{Target: differentialFixture, Args: []string{strings.Join(dormant, ",")}, Witness: true})
		fs := findings(man)
		for _, k := range keys {
			if !hasFinding(fs, policy.KindAntiAnalysis, policy.Critical, "host "+k+"-dormant.example") {
				t.Errorf("dormant on %s: no critical difference", k)
			}
		}
		if t.Failed() {
			logFindings(t, fs)
		}
	})
	t.Run("always", func(t *testing.T) {
		t.Parallel()
		man := run(t, audit.Options{Target: differentialFixture, Args: []string{strings.Join(always, ",")}, Witness: true})
		fs := findings(man)
		if !hasFinding(fs, policy.KindCanary, policy.Critical, "sent") {
			t.Error("the plain theft is no canary finding")
		}
		for _, f := range fs {
			if f.Kind == policy.KindAntiAnalysis && f.Severity == policy.Critical {
				t.Errorf("the same theft always is a difference: %s", f.Summary)
			}
		}
	})
}

// TestDateBombMeetsItsDate: a theft that waits for a date a year ahead
// fires in the traced run's idle phase, whose clock the audit moves years
// ahead: the plain canary finding.
func TestDateBombMeetsItsDate(t *testing.T) {
	t.Parallel()
	man := run(t, audit.Options{Target: differentialFixture, Args: []string{"date-bomb"}, Calls: audit.CallsNone})
	fs := findings(man)
	found := false
	for _, f := range fs {
		found = found || f.Kind == policy.KindCanary && f.Severity == policy.Critical && f.Phase == m.PhaseIdle
	}
	if !found {
		t.Errorf("the date bomb did not fire (clock %+v); findings:", man.Run.ServerTime)
		logFindings(t, fs)
	}
}

// TestDetachedProcess: a child that detaches and outlives the server is a
// high finding; a child that ends with it (the control) is none.
func TestDetachedProcess(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode string
		want bool
	}{{"detach", true}, {"child-exits", false}} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			man := run(t, audit.Options{Target: differentialFixture, Args: []string{tc.mode}, Calls: audit.CallsNone})
			got := hasFinding(findings(man), policy.KindProcess, policy.High, m.AlertDetached)
			if got != tc.want {
				t.Errorf("detached finding %v, want %v; findings:", got, tc.want)
				logFindings(t, findings(man))
			}
		})
	}
}
