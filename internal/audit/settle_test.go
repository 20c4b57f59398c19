package audit

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// fakeActivity grows by one at each of the given offsets from its first
// probe.
func fakeActivity(growAt ...time.Duration) activity {
	var start atomic.Pointer[time.Time]
	return func(context.Context) (int64, bool) {
		now := time.Now()
		start.CompareAndSwap(nil, &now)
		var n int64
		for _, d := range growAt {
			if now.Sub(*start.Load()) >= d {
				n++
			}
		}
		return n, true
	}
}

// TestSettleWindow: a call with no after-effects ends at the floor; one
// whose effects go on keeps its window until they have been quiet for the
// quiet time; nothing outlasts the maximum; a server that exits ends it
// at once.
func TestSettleWindow(t *testing.T) {
	st := settleTimes{floor: 150 * time.Millisecond, quiet: 300 * time.Millisecond, max: 2 * time.Second, poll: 25 * time.Millisecond}
	never := make(chan struct{})
	for _, tc := range []struct {
		name     string
		probe    activity
		done     chan struct{}
		min, max time.Duration
	}{
		{"quiet: the floor", fakeActivity(), never, 150 * time.Millisecond, 280 * time.Millisecond},
		{"busy: quiet after the last change", fakeActivity(100*time.Millisecond, 400*time.Millisecond), never, 700 * time.Millisecond, 1100 * time.Millisecond},
		{"busy without end: the maximum", fakeActivity(ticks(40*time.Millisecond, 100)...), never, 2 * time.Second, 2500 * time.Millisecond},
		{"unmeasurable: the quiet time", func(context.Context) (int64, bool) { return 0, false }, never, 300 * time.Millisecond, 500 * time.Millisecond},
		{"exited", fakeActivity(ticks(40*time.Millisecond, 100)...), closed(), 0, 100 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t0 := time.Now()
			settleWindow(context.Background(), tc.done, tc.probe, st)
			if d := time.Since(t0); d < tc.min || d > tc.max {
				t.Errorf("settled after %v, want %v..%v", d, tc.min, tc.max)
			}
		})
	}
}

// TestSettleDefaultFloor: with the default durations a call with no
// after-effects costs well under the quiet time the fixed rule waited.
func TestSettleDefaultFloor(t *testing.T) {
	t0 := time.Now()
	settleWindow(context.Background(), make(chan struct{}), fakeActivity(), defaultSettle)
	if d := time.Since(t0); d >= settleQuiet {
		t.Errorf("a quiet call settled after %v, want under %v", d, settleQuiet)
	}
}

func ticks(every time.Duration, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(i+1) * every
	}
	return out
}

func closed() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}
