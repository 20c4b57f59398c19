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

// WriteTypicalTrace writes n events shaped like a real server's startup:
// reads of its own modules, runtime probes, a connect and a child process.
func WriteTypicalTrace(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	t0 := 1_700_000_000.0
	for i := 0; i < n; i++ {
		ts := t0 + float64(i)*1e-5
		switch i % 10 {
		case 0:
			fmt.Fprintf(bw, "101 %.6f openat(AT_FDCWD, \"/usr/lib/x86_64-linux-gnu/libm.so.6\", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)\n", ts)
		case 1:
			fmt.Fprintf(bw, "101 %.6f connect(21<socket:[%d]>, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr(\"198.18.0.%d\")}, 16) = -1 EINPROGRESS (Operation now in progress)\n", ts, 9000+i, 1+i%200)
		case 2:
			fmt.Fprintf(bw, "101 %.6f clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM, exit_signal=0}, 88) = %d\n", ts, 200+i%50)
		default:
			fmt.Fprintf(bw, "101 %.6f openat(AT_FDCWD, \"/app/node_modules/x/lib/mod%d/index.js\", O_RDONLY|O_CLOEXEC) = 22</app/node_modules/x/lib/mod%d/index.js>\n", ts, i%3000, i%3000)
		}
	}
	return bw.Flush()
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
