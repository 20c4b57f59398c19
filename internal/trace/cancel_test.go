package trace

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// endless is a trace that never ends, as a hostile file read slowly would.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	line := "101 1700000000.000001 openat(AT_FDCWD, \"/tmp/x\", O_RDONLY) = -1 ENOENT (No such file or directory)\n"
	n := 0
	for n+len(line) <= len(p) {
		n += copy(p[n:], line)
	}
	return n, nil
}

// TestParseStopsOnCancel: Ctrl-C during analysis ends the parse promptly,
// however much trace is left.
func TestParseStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	t0 := time.Now()
	_, err := ParseContext(ctx, io.LimitReader(endless{}, 1<<40), Limits{MaxBytes: 1 << 40, MaxEvents: 1 << 40, MaxRetained: 1 << 40})
	if !errors.Is(err, context.Canceled) || time.Since(t0) > 2*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(t0))
	}
}

// TestParseBoundsRetainedMemory: long arguments are cut and a trace that
// would keep more than MaxRetained ends as truncated.
func TestParseBoundsRetainedMemory(t *testing.T) {
	long := strings.Repeat("a", 10_000)
	var b strings.Builder
	for i := 0; i < 200; i++ {
		b.WriteString("101 1700000000.000001 openat(AT_FDCWD, \"/tmp/" + long + "\", O_RDONLY) = -1 ENOENT (No such file or directory)\n")
	}
	tr, err := ParseContext(context.Background(), strings.NewReader(b.String()), Limits{MaxArg: 100, MaxRetained: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Stats.Truncated || len(tr.Events) == 0 || len(tr.Events) == 200 {
		t.Errorf("truncated %v with %d events", tr.Stats.Truncated, len(tr.Events))
	}
	for _, ev := range tr.Events {
		for _, a := range ev.Args {
			if len(a) > 100 {
				t.Fatalf("argument of %d bytes kept", len(a))
			}
		}
	}
}
