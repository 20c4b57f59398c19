package bench

import (
	"context"
	"io"
	"path/filepath"
	"testing"
)

// TestTypicalTraceAnalyzes: the benchmark's typical trace parses and
// classifies completely (the numbers themselves belong to `make bench`).
func TestTypicalTraceAnalyzes(t *testing.T) {
	f := filepath.Join(t.TempDir(), "typical")
	if err := writeFile(f, func(w io.Writer) error { return WriteTypicalTrace(w, 1000) }); err != nil {
		t.Fatal(err)
	}
	n, _, err := AnalyzeTrace(context.Background(), f)
	if err != nil || n != 1000 {
		t.Fatalf("analyzed %d events, err %v", n, err)
	}
}
