package batch

import (
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/audit"
)

// TestJobsFor: audits wait more than they compute, so a core serves more
// than one; memory for every sandbox an audit holds stays the bound.
func TestJobsFor(t *testing.T) {
	const gib = int64(1) << 30
	for _, tc := range []struct {
		cores     int
		mem       int64
		sandboxes int
		want      int
	}{
		{2, 23 * gib, 2, 4}, // this development machine
		{2, 23 * gib, 1, 4}, // without the witness run
		{4, 16 * gib, 2, 4}, // a larger CI runner: memory bounds it
		{2, 7 * gib, 2, 1},  // a small runner: memory bounds it to one
		{2, 7 * gib, 1, 3},  // the same without the witness run
		{8, 0, 2, 16},       // memory unknown: cores only
		{1, 1 * gib, 2, 1},  // never less than one
		{16, 256 * gib, 2, 32},
		{2, 23 * gib, 4, 2}, // the default audit: traced, witness, calibration and secrets runs
		{4, 64 * gib, 4, 8},
	} {
		if got := jobsFor(tc.cores, tc.mem, 2*gib, tc.sandboxes); got != tc.want {
			t.Errorf("jobsFor(%d cores, %d GiB, %d sandboxes) = %d, want %d", tc.cores, tc.mem/gib, tc.sandboxes, got, tc.want)
		}
	}
}

// TestSandboxesPerAudit: the runs an audit holds side by side.
func TestSandboxesPerAudit(t *testing.T) {
	for _, tc := range []struct {
		o    audit.Options
		want int
	}{
		{audit.Options{}, 1},
		{audit.Options{Witness: true}, 2},
		{audit.Options{Differential: true}, 3},
		{audit.Options{Witness: true, Differential: true}, 4},
	} {
		if got := SandboxesPerAudit(tc.o); got != tc.want {
			t.Errorf("%+v: %d sandboxes, want %d", tc.o, got, tc.want)
		}
	}
}
