package schedule

import "time"

// MinCallTimeout is the least time a call is given: a first call's share
// of the budget never goes below it (past the point where every first
// call can get it, the last ones are skipped — and the audit says so).
const MinCallTimeout = time.Second

// reservedFirst is the time a later call leaves for each first call
// still to come.
const reservedFirst = 4 * time.Second

// settleShare is the part of a first call's share kept for its window to
// settle after the answer (the audit waits for the call's effects).
const settleShare = 4 // a quarter

// Budget shares the time for calls. Each first call of an item gets at
// most the per-call timeout and at most an equal share of what is left
// among the first calls still to make, so a server whose first tools hang
// cannot starve the later ones; later calls get what is left past a
// reserve for the first calls still to come.
type Budget struct {
	deadline time.Time
	total    time.Duration
	perCall  time.Duration
	firsts   int
	now      func() time.Time
}

// NewBudget starts a budget of total for the calls of plan, at most
// perCall each.
func NewBudget(total, perCall time.Duration, plan []Call, now func() time.Time) *Budget {
	firsts := 0
	for _, c := range plan {
		if c.Pass <= 1 {
			firsts++
		}
	}
	return NewBudgetFor(total, perCall, firsts, now)
}

// NewBudgetFor starts a budget of total shared among firsts first calls
// (Planner.Firsts), at most perCall each.
func NewBudgetFor(total, perCall time.Duration, firsts int, now func() time.Time) *Budget {
	if now == nil {
		now = time.Now
	}
	return &Budget{deadline: now().Add(total), total: total, perCall: perCall, now: now, firsts: firsts}
}

// Next is the timeout of the next call (first: an item's first call), or
// false when the budget is used up.
func (b *Budget) Next(first bool) (time.Duration, bool) {
	left := b.deadline.Sub(b.now())
	if first && b.firsts > 0 {
		defer func() { b.firsts-- }()
	}
	if left <= 0 {
		return 0, false
	}
	if !first && b.firsts > 0 {
		// A later call leaves the first calls still to come (the enders'
		// come after every other tool's later calls) a share each, in all
		// at most half the budget: a server listing a hundred enders
		// cannot take the later passes' time.
		left -= min(time.Duration(b.firsts)*min(b.perCall, reservedFirst), b.total/2)
		if left < MinCallTimeout {
			return 0, false
		}
	}
	t := min(b.perCall, left)
	if first && b.firsts > 0 {
		share := left / time.Duration(b.firsts)
		t = min(t, max(share-share/settleShare, MinCallTimeout))
	}
	if t < MinCallTimeout && t < b.perCall {
		return 0, false // too little left to wait for an answer
	}
	return t, true
}
