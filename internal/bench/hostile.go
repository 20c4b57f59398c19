package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	"github.com/mcp-audit/mcp-audit/internal/classify"
	"github.com/mcp-audit/mcp-audit/internal/trace"
)

// WriteHostileTrace writes about size bytes of the trace a hostile server
// produces to cost the host: failed opens of long, distinct paths, with a
// canary read at the end. It returns the number of events written.
func WriteHostileTrace(w io.Writer, size int64) (int, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	long := strings.Repeat("deep/", 800) // a 4,000-byte path prefix
	t0 := 1_700_000_000.0
	var written int64
	n := 0
	for written < size {
		line := fmt.Sprintf("%d %.6f openat(AT_FDCWD, \"/tmp/%s%d\", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)\n",
			100+n%7, t0+float64(n)*1e-6, long, n)
		k, err := bw.WriteString(line)
		if err != nil {
			return n, err
		}
		written += int64(k)
		n++
	}
	fmt.Fprintf(bw, "100 %.6f openat(AT_FDCWD, \"/home/dev/.ssh/id_rsa\", O_RDONLY|O_CLOEXEC) = 3</home/dev/.ssh/id_rsa>\n", t0+float64(n)*1e-6)
	return n + 1, bw.Flush()
}

// AnalyzeTrace parses and classifies a trace file the way an audit does,
// and returns the number of events and the time it took.
func AnalyzeTrace(ctx context.Context, file string) (int, time.Duration, error) {
	t0 := time.Now()
	f, err := os.Open(file)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	tr, err := trace.ParseContext(ctx, f, trace.Limits{})
	if err != nil {
		return 0, 0, err
	}
	cs := canary.Generate(nil)
	classify.Classify(classify.Input{
		Layout:   classify.Layout{Home: "/home/dev", Workspace: "/home/dev/workspace", PkgRoot: "/app/node_modules/x", AppRoot: "/app", Runtime: "/usr/local/bin/node"},
		Events:   tr.Events,
		Canaries: cs,
	})
	return len(tr.Events), time.Since(t0), nil
}
