package schedule

import (
	"testing"
	"time"
)

// TestBudgetCannotBeStarved: forty tools whose calls all hang before the
// harmful one, under the default budget (5 minutes, 10 s a call): every
// first call gets a share, so the last tool is still called; without
// shares (10 s each) the budget is gone after thirty.
func TestBudgetCannotBeStarved(t *testing.T) {
	now := time.Unix(0, 0)
	clock := func() time.Time { return now }
	var plan []Call
	for range 41 {
		plan = append(plan, Call{Kind: "tool", Pass: 1})
	}
	for range 41 {
		plan = append(plan, Call{Kind: "tool", Pass: 2})
	}
	b := NewBudget(5*time.Minute, 10*time.Second, plan, clock)
	called := 0
	for _, c := range plan[:41] {
		d, ok := b.Next(c.Pass <= 1)
		if !ok {
			break
		}
		called++
		if d > 10*time.Second || d < MinCallTimeout {
			t.Fatalf("timeout %v", d)
		}
		now = now.Add(d + d/settleShare) // it hangs to its timeout, then settles
	}
	if called != 41 {
		t.Errorf("%d of 41 first calls made", called)
	}
	// What is left goes to the second calls, in order, each at most the
	// per-call timeout.
	if d, ok := b.Next(false); ok && d > 10*time.Second {
		t.Errorf("second call %v", d)
	}
}

// TestBudgetFastCalls: calls that answer at once leave the budget to the
// others: every call gets the full per-call timeout.
func TestBudgetFastCalls(t *testing.T) {
	now := time.Unix(0, 0)
	plan := []Call{{Pass: 1}, {Pass: 1}, {Pass: 2}}
	b := NewBudget(time.Minute, 10*time.Second, plan, func() time.Time { return now })
	for i, c := range plan {
		d, ok := b.Next(c.Pass <= 1)
		if !ok || d != 10*time.Second {
			t.Errorf("call %d: %v %v", i, d, ok)
		}
		now = now.Add(100 * time.Millisecond)
	}
}

// TestBudgetExhausted: past the deadline nothing more is called.
func TestBudgetExhausted(t *testing.T) {
	now := time.Unix(0, 0)
	b := NewBudget(time.Second, 10*time.Second, []Call{{Pass: 1}}, func() time.Time { return now })
	now = now.Add(2 * time.Second)
	if _, ok := b.Next(true); ok {
		t.Error("called past the deadline")
	}
}

// TestBudgetReservesFirsts: later calls leave each first call still to
// come (an ender's, made after the other tools' later calls) its share,
// so hanging later calls cannot use up the time for it.
func TestBudgetReservesFirsts(t *testing.T) {
	now := time.Unix(0, 0)
	b := NewBudgetFor(time.Minute, 10*time.Second, 3, func() time.Time { return now })
	for range 2 {
		d, _ := b.Next(true)
		now = now.Add(d)
	}
	for {
		d, ok := b.Next(false)
		if !ok {
			break
		}
		now = now.Add(d)
	}
	d, ok := b.Next(true)
	if want := reservedFirst - reservedFirst/settleShare; !ok || d < want {
		t.Errorf("the last first call got %v, %v; want at least %v", d, ok, want)
	}
}

// TestBudgetReserveIsCapped: a hundred first calls still to come hold at
// most half of what is left, so later calls are still made.
func TestBudgetReserveIsCapped(t *testing.T) {
	now := time.Unix(0, 0)
	b := NewBudgetFor(5*time.Minute, 10*time.Second, 100, func() time.Time { return now })
	if d, ok := b.Next(false); !ok || d < 10*time.Second {
		t.Errorf("a later call got %v, %v with 100 first calls pending", d, ok)
	}
}
