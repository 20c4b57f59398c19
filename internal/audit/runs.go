package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	"github.com/mcp-audit/mcp-audit/internal/coverage"
	"github.com/mcp-audit/mcp-audit/internal/differ"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/merge"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Func is an audit of one server in runs runs: RunStable, or a stand-in
// that returns recorded manifests (check's and batch's unit tests).
type Func func(ctx context.Context, d Deps, o Options, runs int) (*Result, error)

// RunStable audits n times to remove noise without hiding danger, and
// merges the runs (internal/merge): an entry is compared across runs
// after its random labels are normalized; what every run did stays; what
// only some runs did is dropped as noise only when the policy finds
// nothing in it at medium or above; entries that carry a finding are kept
// from whichever run had them. Each run gets its own client environment
// profile. n <= 1 is a single Run.
func RunStable(ctx context.Context, d Deps, o Options, n int) (*Result, error) {
	if n <= 1 {
		return Run(ctx, d, o)
	}
	var results []*Result
	for i := 0; i < n; i++ {
		o.Run = i
		r, err := Run(ctx, d, o)
		if err != nil {
			return r, err
		}
		results = append(results, r)
	}
	mans := make([]*m.Manifest, len(results))
	for i, r := range results {
		mans[i] = r.Manifest
	}
	merge.Runs(mans)
	return results[0], nil
}

// The witness run (internal/differ): the same server, canaries and calls
// without the tracer and the clock shim, observed from outside its
// processes, side by side with the traced run.

// executeWithWitness runs the traced run and the witness run side by side
// and records their differences in the traced run's manifest.
func executeWithWitness(ctx context.Context, d Deps, o Options, p *Prepared) (*Result, error) {
	wp, err := p.forWitness()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRuntime, err)
	}
	p.Spec.Watch = true // the programs it opened, seen like the witness's
	t0 := time.Now()
	type outcome struct {
		res *Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		r, err := execute(ctx, d, o, wp)
		done <- outcome{r, err}
	}()
	res, err := execute(ctx, d, o, p)
	w := <-done
	if err != nil {
		return res, err
	}
	man := res.Manifest
	if w.err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// The traced run stands; the comparison is missing, which makes
		// the verdict incomplete (internal/coverage), not the audit a
		// runtime failure.
		man.Run.WitnessRun = "failed: " + textsafe.Line(w.err.Error(), 300)
		man.Coverage = coverage.Compute(man, notPlanned(o))
		return res, nil
	}
	man.Run.WitnessRun = "ran"
	traced := differ.Run{Name: "traced", Manifest: man, Outside: res.outside,
		Factors: []differ.Factor{{Name: "tracer", Value: "on"}, {Name: "clock", Value: "shim"}}}
	witness := differ.Run{Name: "witness run", Manifest: w.res.Manifest, Outside: w.res.outside,
		Factors: []differ.Factor{{Name: "tracer", Value: "off"}, {Name: "clock", Value: "real"}}}
	man.Witness = differ.Witness(traced, witness)
	if n := differ.WatchNote(res.outside, w.res.outside); n != "" {
		man.Run.Notes = append(man.Run.Notes, n)
	}
	man.Run.WitnessCanaryEnv = w.res.Manifest.Run.CanaryEnv
	differ.AddOnlyPlanted(man, w.res.Manifest, witness.Name)
	man.Run.PhaseTimingMS = append(man.Run.PhaseTimingMS, m.PhaseTiming{Phase: m.PhaseWitness, MS: time.Since(t0).Milliseconds()})
	if w.res.Manifest.Outcome.Status != man.Outcome.Status {
		man.Run.Notes = append(man.Run.Notes, "the witness run ended "+w.res.Manifest.Outcome.Status+", the traced run "+man.Outcome.Status)
	}
	m.Canonicalize(man)
	man.Coverage = coverage.Compute(man, notPlanned(o))
	return res, nil
}

// forWitness is the same preparation for an untraced run, with its own
// copy of the manifest.
func (p *Prepared) forWitness() (*Prepared, error) {
	b, err := json.Marshal(p.Manifest)
	if err != nil {
		return nil, fmt.Errorf("copying the manifest: %w", err)
	}
	w := *p
	w.Manifest = new(m.Manifest)
	if err := json.Unmarshal(b, w.Manifest); err != nil {
		return nil, fmt.Errorf("copying the manifest: %w", err)
	}
	w.Spec.NoTrace = true
	// Code coverage is the traced run's only: a server that behaves
	// differently when it sees NODE_V8_COVERAGE differs between the runs.
	w.Spec.CoverageDir = ""
	w.Spec.Env = slices.DeleteFunc(slices.Clone(w.Spec.Env), func(e string) bool { return strings.HasPrefix(e, "NODE_V8_COVERAGE=") })
	w.Spec.Watch = true // decoy reads and programs, seen by inotify (watch.py)
	// Nor the clock shim: its library and variables are visible to the
	// server (LD_PRELOAD, FAKETIME_TIMESTAMP_FILE, /proc/self/maps), so a server that
	// waits out the shim must meet a real clock in one of the two runs.
	// Delayed payloads are the traced run's job.
	w.Spec.ClockRate = 1
	w.Spec.Install = nil // install scripts ran traced; the witness is about the server
	// Its own subset of the undeclared canary variables (the declared
	// ones and the decoy files keep their values), so the two runs
	// together plant more of them.
	w.plant.Witness = true
	w.Canaries = p.Canaries.WithEnv(w.plant.Env())
	w.Spec.Env = swapCanaryEnv(p.Spec.Env, p.Canaries, w.Canaries)
	w.Manifest.Run.CanaryEnv = w.plant.Env()
	return &w, nil
}

// plantChoice is which canary variables a run of the server seed
// (pkg@version) plants: the declared ones, and a subset of the other
// provider variables that changes with the run (all of them with
// AllCanaries).
func plantChoice(o Options, seed string) canary.Choice {
	return canary.Choice{Declared: o.CanaryEnv, Seed: seed, Run: o.Run, All: o.AllCanaries}
}

// swapCanaryEnv replaces the variables of old in env by those of cur, in
// their place: the client's environment before, --env after.
func swapCanaryEnv(env []string, old, cur *canary.Set) []string {
	at := -1
	out := make([]string, 0, len(env))
	for _, e := range env {
		if slices.Contains(old.EnvList(), e) {
			if at < 0 {
				at = len(out)
			}
			continue
		}
		out = append(out, e)
	}
	if at < 0 {
		at = len(out)
	}
	return slices.Insert(out, at, cur.EnvList()...)
}
