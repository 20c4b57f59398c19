package audit

import (
	"context"
	"sync"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

// Settling a call. Events are attributed to a call by their own time
// (strace -ttt, the sink's clock: both CLOCK_REALTIME, shared with the
// host), so a call's window only has to stay open until whatever the call
// set off has started; a syscall that began inside the window is
// attributed to it even when strace prints it later. The window ends:
//
//   - at the floor, when neither the trace nor the sink's log grew after
//     the answer: the call had no after-effects. The floor covers the
//     turn of the server's event loop in which work scheduled on answering
//     starts (microseconds to a few milliseconds after the answer is
//     written, which itself reaches the host later through the engine's
//     attach stream) and gives the probe at least two samples after the
//     answer; anything a server defers longer than the floor on purpose is
//     not the call's in time either way (it lands in the next window, and
//     in the manifest all the same).
//   - when the call did have after-effects (the trace or the sink's log
//     grew): once both have been quiet for settleQuiet, as before, because
//     a connection's request reaches the sink's log only after its TLS
//     handshake, with no traced syscall in between.
//   - at settleMax in any case.
const (
	settleFloor = 150 * time.Millisecond
	settlePoll  = 50 * time.Millisecond
)

// activity measures how much the server has done so far: any change
// means it is still busy. ok is false when nothing could be measured.
type activity func(ctx context.Context) (size int64, ok bool)

// runActivity is the trace's size plus the sink's log's, probed at the
// same time (the witness run has no trace, only a sink).
func runActivity(run *sandbox.Run) activity {
	return func(ctx context.Context) (int64, bool) {
		var wg sync.WaitGroup
		var sinkSize int64
		var sinkOK bool
		wg.Add(1)
		go func() {
			defer wg.Done()
			sinkSize, sinkOK = run.SinkLogSize(ctx)
		}()
		traceSize, err := run.TraceSize(ctx)
		wg.Wait()
		return max(traceSize, 0) + sinkSize, err == nil || sinkOK
	}
}

// settleTimes are the settling rule's durations (tests shorten them).
type settleTimes struct {
	floor, quiet, max, poll time.Duration
}

var defaultSettle = settleTimes{floor: settleFloor, quiet: settleQuiet, max: settleMax, poll: settlePoll}

// settleWindow waits until the call's effects have landed, by the rule
// above, or the server exits, or ctx ends.
func settleWindow(ctx context.Context, done <-chan struct{}, probe activity, st settleTimes) {
	start := time.Now()
	last, ok := probe(ctx)
	if !ok {
		sleep(ctx, done, st.quiet)
		return
	}
	lastChange, changed := start, false
	for {
		if !sleep(ctx, done, st.poll) {
			return
		}
		size, ok := probe(ctx)
		if !ok {
			return
		}
		now := time.Now()
		if size != last {
			last, lastChange, changed = size, now, true
		}
		switch {
		case now.Sub(start) >= st.max:
			return
		case !changed && now.Sub(start) >= st.floor:
			return
		case changed && now.Sub(lastChange) >= st.quiet:
			return
		}
	}
}

// sleep waits d; false when the server exited or ctx ended first.
func sleep(ctx context.Context, done <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-done:
		return false
	case <-ctx.Done():
		return false
	}
}
