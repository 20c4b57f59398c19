package audit_test

import (
	"slices"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// TestWitnessNoatimeRead: a decoy read with O_NOATIME leaves the access
// time alone, so only a watcher that does not trace the server (inotify on
// the decoy files, run as root in the witness run) sees it. Done only when
// untraced, it is a critical anti-analysis finding; done always, it is the
// usual canary read (the control) and no difference.
func TestWitnessNoatimeRead(t *testing.T) {
	t.Parallel()
	t.Run("untraced-noatime", func(t *testing.T) {
		man := reviewRun(t, "untraced-noatime")
		fs := findings(man)
		if !hasFinding(fs, policy.KindAntiAnalysis, policy.Critical, "canary file:~/.aws/credentials read") {
			t.Errorf("no critical anti-analysis finding for a decoy read only when untraced (witness %+v); findings:", man.Witness)
			logFindings(t, fs)
		}
	})
	t.Run("control-always-noatime", func(t *testing.T) {
		man := reviewRun(t, "always-noatime")
		fs := findings(man)
		if !hasFinding(fs, policy.KindCanary, policy.Critical, "file:~/.aws/credentials") && !hasFinding(fs, policy.KindCanary, policy.High, "file:~/.aws/credentials") {
			t.Errorf("no canary finding for the read; findings:")
			logFindings(t, fs)
		}
		if len(man.Witness) != 0 {
			t.Errorf("witness differences for a server that reads in both runs: %+v", man.Witness)
		}
	})
}

// TestWitnessOutsideSubjects: what only the untraced run did is named by
// its own subject (the address, the home file, the program), and the same
// harm done in both runs is no difference (the controls).
func TestWitnessOutsideSubjects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ what, subject string }{
		{"ip", "connection tcp 198.51.100.7:4444"},
		{"bashrc", "home file ~/.bashrc changed"},
		{"exec", "process /usr/bin/dash"},
		// A script's interpreter: the trace shows the script, only the
		// file watchers show the interpreter the kernel opened (a clean
		// server running npm, chrome-devtools-mcp, got a critical
		// anti-analysis finding before the traced run had a watcher too).
		{"envscript", "process /usr/bin/env"},
		{"shscript", "process /usr/bin/dash"},
		// Reading a program in the traced run (its watcher sees the open)
		// does not excuse running it in the witness run: the trace shows
		// the open, so it is not counted as run.
		{"readexec", "process /usr/bin/id"},
	} {
		t.Run("untraced-"+tc.what, func(t *testing.T) {
			man := reviewRun(t, "untraced-"+tc.what)
			var subjects []string
			for _, d := range man.Witness {
				subjects = append(subjects, d.Subject)
			}
			if !slices.Contains(subjects, tc.subject) {
				t.Errorf("no witness difference %q; got %q", tc.subject, subjects)
			}
		})
		t.Run("control-always-"+tc.what, func(t *testing.T) {
			if man := reviewRun(t, "always-"+tc.what); len(man.Witness) != 0 {
				t.Errorf("witness differences for harm done in both runs: %+v", man.Witness)
			}
		})
	}
}
