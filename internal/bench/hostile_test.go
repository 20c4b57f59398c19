package bench

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestHostileTraceAnalysis is run by hand (MCP_AUDIT_HOSTILE_MB=512) to
// measure; the benchmark line in `make bench` is the tracked number.
func TestHostileTraceAnalysis(t *testing.T) {
	mb, _ := strconv.Atoi(os.Getenv("MCP_AUDIT_HOSTILE_MB"))
	if mb == 0 {
		t.Skip("set MCP_AUDIT_HOSTILE_MB")
	}
	f := filepath.Join(t.TempDir(), "trace")
	out, _ := os.Create(f)
	n, err := WriteHostileTrace(out, int64(mb)<<20)
	out.Close()
	if err != nil {
		t.Fatal(err)
	}
	kept, d, err := AnalyzeTrace(context.Background(), f)
	t.Logf("written %d events, kept %d, %v, err %v", n, kept, d, err)
}
