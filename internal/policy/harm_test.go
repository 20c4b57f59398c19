package policy

import "testing"

func TestHarmful(t *testing.T) {
	for _, tc := range []struct {
		f    Finding
		want bool
	}{
		{Finding{Severity: Critical, Kind: KindCanary}, true},
		{Finding{Severity: Critical, Kind: KindPersistence}, true},
		{Finding{Severity: Critical, Kind: KindAIConfig}, true},
		{Finding{Severity: High, Kind: KindAIConfig}, true}, // read of AI client configuration (credentials)
		{Finding{Severity: High, Kind: KindSensitive}, true},
		{Finding{Severity: Medium, Kind: KindSensitive}, false}, // a probe
		{Finding{Severity: High, Kind: KindTool}, true},         // text aimed at the model
		{Finding{Severity: Medium, Kind: KindTool}, false},      // a description that changed
		{Finding{Severity: Medium, Kind: KindCredential}, false},
		{Finding{Severity: High, Kind: KindHost}, false},
		{Finding{Severity: High, Kind: KindTrace}, true}, // a cut trace: what it hid is unknown
		{Finding{Severity: Critical, Kind: KindShell}, true},
	} {
		if got := Harmful(tc.f); got != tc.want {
			t.Errorf("Harmful(%s %s) = %v", tc.f.Severity, tc.f.Kind, got)
		}
	}
}
