package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// AnalyzeFlag makes mcp-audit-bench analyze one trace file and exit, so
// that the parent can read the child's peak memory from the kernel.
const AnalyzeFlag = "-analyze-trace"

// AnalysisCost prints the host's cost of parsing and classifying traces:
// per 100k events of a typical trace (in process), and the time and peak
// memory of a hostile 512 MiB trace (in a child process, measured by the
// kernel's maxrss).
func AnalysisCost(ctx context.Context, w io.Writer, self string) error {
	dir, err := os.MkdirTemp("", "mcp-audit-bench-trace-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	typical := filepath.Join(dir, "typical")
	if err := writeFile(typical, func(f io.Writer) error { return WriteTypicalTrace(f, 100_000) }); err != nil {
		return err
	}
	n, d, err := AnalyzeTrace(ctx, typical)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "host analysis cost per 100k trace events: %.2f s (%d events)\n", d.Seconds()*100_000/float64(max(n, 1)), n)
	hostile := filepath.Join(dir, "hostile")
	if err := writeFile(hostile, func(f io.Writer) error { _, err := WriteHostileTrace(f, 512<<20); return err }); err != nil {
		return err
	}
	t0 := time.Now()
	cmd := exec.CommandContext(ctx, self, AnalyzeFlag, hostile)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("analyzing the hostile trace: %w", err)
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
	fmt.Fprintf(w, "host analysis of a hostile 512 MiB trace: %.1f s, peak memory %d MiB (bound 500 MiB)\n",
		time.Since(t0).Seconds(), peak/1024)
	return nil
}

func writeFile(name string, fill func(io.Writer) error) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := fill(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
