package audit

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	"github.com/mcp-audit/mcp-audit/internal/coverage"
	"github.com/mcp-audit/mcp-audit/internal/differ"
	"github.com/mcp-audit/mcp-audit/internal/differential"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
	"github.com/mcp-audit/mcp-audit/internal/merge"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
	"github.com/mcp-audit/mcp-audit/internal/variant"
)

// Func is an audit of one server in runs runs: RunStable, or a stand-in
// that returns recorded manifests (check's and batch's unit tests).
type Func func(ctx context.Context, d Deps, o Options, runs int) (*Result, error)

// RunStable audits n times and merges the runs (internal/merge): entries
// compared with their random labels normalized; what only some runs did is
// dropped as noise only when the policy finds nothing in it at medium or
// above. Each run gets its own client profile. n <= 1 is a single Run.
func RunStable(ctx context.Context, d Deps, o Options, n int) (*Result, error) {
	if n <= 1 {
		return Run(ctx, d, o)
	}
	var results []*Result
	var mans []*m.Manifest
	for i := range n {
		o.Run = i
		r, err := Run(ctx, d, o)
		if err != nil {
			return r, err
		}
		results, mans = append(results, r), append(mans, r.Manifest)
	}
	merge.Runs(mans)
	return results[0], nil
}

// The runs beyond the first. The witness run (internal/differ) is the
// same server, canaries and calls without the tracer and the clock shim,
// under another identity (host name, machine id, the sinkhole's answer
// range, the client) and after earlier launches over the same home and
// /tmp, observed from outside its processes: what only it shows is a
// server that behaves differently when watched. The calibration and
// secrets runs (internal/differential) repeat the traced run with the
// same secrets and with others of the same shapes: what the server emits
// that follows the planted values is secret-derived, whatever the
// encoding. All run side by side with the traced run.

// variantRun is one run beside the primary.
type variantRun struct {
	name string
	p    *Prepared
	res  *Result
	err  error
}

// executeRuns runs the primary run and its variants side by side and
// records what differs in the primary's manifest.
func executeRuns(ctx context.Context, d Deps, o Options, p *Prepared) (*Result, error) {
	var vs []*variantRun
	if o.Witness {
		wp, err := p.forWitness()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrRuntime, err)
		}
		p.Spec.Watch = true // the programs it opened, seen like the witness's
		vs = append(vs, &variantRun{name: runWitness, p: wp})
	}
	if o.Differential {
		cal, err := p.clone()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrRuntime, err)
		}
		p.secret.CalibrationClock(&cal.Spec, p.seed)
		sec, err := p.forSecrets()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrRuntime, err)
		}
		vs = append(vs, &variantRun{name: runCalibration, p: cal}, &variantRun{name: runSecrets, p: sec})
	}
	eraP, err := p.clone() // before the primary run fills the manifest
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRuntime, err)
	}
	t0 := time.Now()
	var wg sync.WaitGroup
	quiet := o
	quiet.Progress = nil
	for _, v := range vs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v.res, v.err = execute(ctx, d, quiet, v.p)
		}()
	}
	res, err := execute(ctx, d, o, p)
	wg.Wait()
	if err != nil {
		return res, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	man := res.Manifest
	if len(vs) > 0 {
		man.Run.Variants = []m.Variant{primaryVariant(p)}
		for _, v := range vs {
			combine(man, res, v, vs)
		}
		man.Run.PhaseTimingMS = append(man.Run.PhaseTimingMS, m.PhaseTiming{Phase: m.PhaseWitness, MS: time.Since(t0).Milliseconds()})
	}
	if o.Differential {
		compareSecrets(man, res, vs, p.Canaries)
	}
	eraRun(ctx, d, quiet, eraP, man, res)
	m.Canonicalize(man)
	man.Coverage = coverage.Compute(man, notPlanned(o))
	return res, nil
}

// eraRun audits a server that speaks both protocol eras once more, in
// the era its primary session did not speak (a clone of the primary: the
// same secrets, identity and calls), after the others: only a server
// that opens in the modern era (or answers it late) pays for it. What the two sessions
// offered or did differently is recorded (differ.Eras).
func eraRun(ctx context.Context, d Deps, o Options, p *Prepared, man *m.Manifest, res *Result) {
	op := res.opening
	if op == nil || cmp.Or(o.Protocol, mcpclient.ProtocolAuto) != mcpclient.ProtocolAuto {
		return
	}
	if op.Era == mcpclient.EraModern {
		man.Server.Eras = []string{mcpclient.ProtocolModern}
	}
	other := otherEra(op)
	if other == "" {
		return
	}
	t0 := time.Now()
	o.Protocol = other
	er, err := execute(ctx, d, o, p)
	man.Run.PhaseTimingMS = append(man.Run.PhaseTimingMS, m.PhaseTiming{Phase: m.PhaseEras, MS: time.Since(t0).Milliseconds()})
	if err != nil || er.Manifest.Server.ProtocolVersion == "" {
		man.Run.Notes = append(man.Run.Notes, "a session in the "+other+" revision did not open: the server speaks "+op.ProtocolVersion+" only")
		return
	}
	v := p.variant(runEra)
	v.Protocol = other
	man.Run.Variants = append(man.Run.Variants, v)
	man.Server.Eras = append(man.Server.Eras, op.ProtocolVersion, er.Manifest.Server.ProtocolVersion)
	man.EraDifferences = differ.Eras(differ.Run{Name: op.ProtocolVersion, Manifest: man}, differ.Run{Name: er.Manifest.Server.ProtocolVersion, Manifest: er.Manifest})
}

// otherEra is the revision a second session should open in: the 2025
// handshake for a server that opened in the modern era (an SDK v2 server
// serves both from one factory, and its discovery lists only 2026-07-28,
// so only a session can tell), the modern one for a server that answered
// the probe too late (it was pinned to 2025 on this connection); "" for a
// 2025 server.
func otherEra(op *mcpclient.Opening) string {
	switch {
	case op.Era == mcpclient.EraModern:
		return mcpclient.ProtocolLegacy
	case op.Era == mcpclient.EraLegacy && op.Probe.Late:
		return mcpclient.ProtocolModern
	}
	return ""
}

// Names of the runs.
const (
	runWitness     = "witness run"
	runCalibration = "calibration run"
	runSecrets     = "secrets run"
	runEra         = "era run"
)

// combine adds what one variant showed to the primary's manifest: a
// variant that failed leaves its comparison missing (the verdict then
// incomplete, not the audit a runtime failure).
func combine(man *m.Manifest, res *Result, v *variantRun, vs []*variantRun) {
	if v.err != nil {
		why := "failed: " + textsafe.Line(v.err.Error(), 300)
		if v.name == runWitness {
			man.Run.WitnessRun = why
		} else {
			man.Run.Notes = append(man.Run.Notes, "the "+v.name+" "+why+": what follows the planted values was not compared")
			man.Run.Differential = why
		}
		return
	}
	man.Run.Variants = append(man.Run.Variants, v.p.variant(v.name))
	if v.name != runWitness {
		return
	}
	w := v.res
	man.Run.WitnessRun = "ran"
	traced := differ.Run{Name: "traced", Manifest: man, Outside: res.outside, Factors: variant.Factors(man.Run.Variants[0])}
	witness := differ.Run{Name: runWitness, Manifest: w.Manifest, Outside: w.outside, Factors: variant.Factors(v.p.variant(v.name))}
	var also []differ.Run // the other traced runs, whose hosts a witness-only host may be among
	for _, x := range vs {
		if x.name != runWitness && x.err == nil && x.res != nil {
			also = append(also, differ.Run{Name: x.name, Manifest: x.res.Manifest})
		}
	}
	man.Witness = differ.Witness(traced, witness, also...)
	if n := differ.WatchNote(res.outside, w.outside); n != "" {
		man.Run.Notes = append(man.Run.Notes, n)
	}
	man.Run.WitnessCanaryEnv = w.Manifest.Run.CanaryEnv
	differ.AddOnlyPlanted(man, w.Manifest, runWitness)
	if w.Manifest.Outcome.Status != man.Outcome.Status {
		man.Run.Notes = append(man.Run.Notes, "the witness run ended "+w.Manifest.Outcome.Status+", the traced run "+man.Outcome.Status)
	}
}

// clone is the same preparation with its own copy of the manifest.
func (p *Prepared) clone() (*Prepared, error) {
	b, err := json.Marshal(p.Manifest)
	if err != nil {
		return nil, fmt.Errorf("copying the manifest: %w", err)
	}
	c := *p
	c.Manifest = new(m.Manifest)
	if err := json.Unmarshal(b, c.Manifest); err != nil {
		return nil, fmt.Errorf("copying the manifest: %w", err)
	}
	c.Spec.Env = slices.Clone(p.Spec.Env)
	return &c, nil
}

// forSecrets is the preparation with other secrets of the same shapes:
// fresh values for the same canary variables and fresh contents of the
// same decoy files. The declared variables (the credentials the server
// is given) keep their values: what it derives from them and sends where
// they are used is its job, and does not vary.
func (p *Prepared) forSecrets() (*Prepared, error) {
	c, err := p.clone()
	if err != nil {
		return nil, err
	}
	c.Canaries = p.Canaries.Regenerate(c.plant.Env(), c.plant.Declared)
	c.Spec.Env = canary.SwapEnv(p.Spec.Env, p.Canaries, c.Canaries)
	c.Spec.HomeFiles, c.Spec.CanaryFiles = homeFiles(c.Canaries)
	return c, nil
}

// forWitness is the preparation of the witness run.
func (p *Prepared) forWitness() (*Prepared, error) {
	w, err := p.clone()
	if err != nil {
		return nil, err
	}
	w.Spec.NoTrace = true
	// Code coverage and the seeded randomness are the traced runs' only:
	// a server that behaves differently when it sees NODE_V8_COVERAGE or
	// --random-seed differs between the runs.
	w.Spec.CoverageDir = ""
	w.Spec.Env = slices.DeleteFunc(w.Spec.Env, func(e string) bool { return strings.HasPrefix(e, "NODE_V8_COVERAGE=") })
	w.Spec.Cmd = slices.DeleteFunc(slices.Clone(w.Spec.Cmd), func(a string) bool { return strings.HasPrefix(a, variant.RandomSeedFlag) })
	w.Spec.Watch = true // decoy reads and programs, seen by inotify (watch.py)
	// Nor the clock shim: its library and variables are visible to the
	// server (LD_PRELOAD, FAKETIME_TIMESTAMP_FILE, /proc/self/maps), so a
	// server that waits out the shim must meet a real clock in one of the
	// two runs. Delayed payloads are the traced run's job.
	w.Spec.ClockRate, w.Spec.ClockAhead = 1, 0
	w.Spec.Install = nil // install scripts ran traced; the witness is about the server
	// Its own subset of the undeclared canary variables (the declared
	// ones and the decoy files keep their values), so the two runs
	// together plant more of them.
	w.plant.Witness = true
	w.Canaries = p.Canaries.WithEnv(w.plant.Env())
	w.Spec.Env = canary.SwapEnv(w.Spec.Env, p.Canaries, w.Canaries)
	w.Manifest.Run.CanaryEnv = w.plant.Env()
	witnessIdentity(w)
	return w, nil
}

// plantChoice is which canary variables a run of the server seed (pkg@version)
// plants: the declared ones, and a subset of the other provider variables that
// changes with the run (all of them with AllCanaries).
func plantChoice(o Options, seed string) canary.Choice {
	return canary.Choice{Declared: o.CanaryEnv, Seed: seed, Run: o.Run, All: o.AllCanaries}
}

// compareSecrets records what follows the planted values, once both other runs ran.
func compareSecrets(man *m.Manifest, res *Result, vs []*variantRun, primary *canary.Set) {
	var cal, sec *variantRun
	for _, v := range vs {
		switch {
		case v.err != nil && v.name != runWitness:
			return
		case v.name == runCalibration:
			cal = v
		case v.name == runSecrets:
			sec = v
		}
	}
	if cal == nil || sec == nil || cal.res == nil || sec.res == nil {
		return
	}
	man.Run.Differential = "compared"
	man.Derived = differential.Derive(man, Workspace, res.records, cal.res.records, sec.res.records, cal.res.Manifest, sec.res.Manifest)
	differential.Redact(man.Derived, primary.Redact, sec.p.Canaries.Redact) // a field's name can be a key made of a secret
}
