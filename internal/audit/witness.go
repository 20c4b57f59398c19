package audit

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/hosts"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// A traced process can always tell it is traced (TracerPid in
// /proc/self/status, its parent's name), so a server can stay dormant
// under the tracer. The witness run is the same server, the same
// canaries and the same calls, without the tracer, observed only from
// outside its processes: the sink (its own container), the access-time
// witness and what the server wrote and said. Whatever it shows there
// and not in the traced run is a difference the policy judges critical.

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
	if w.err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return res, fmt.Errorf("witness run: %w", w.err)
	}
	man := res.Manifest
	man.Witness = witnessDifferences(res, w.res)
	if n := watchNote(res.outside, w.res.outside); n != "" {
		man.Run.Notes = append(man.Run.Notes, n)
	}
	man.Run.WitnessCanaryEnv = w.res.Manifest.Run.CanaryEnv
	addWitnessOnlyCanaries(man, w.res.Manifest)
	man.Run.PhaseTimingMS = append(man.Run.PhaseTimingMS, m.PhaseTiming{Phase: m.PhaseWitness, MS: time.Since(t0).Milliseconds()})
	if w.res.Manifest.Outcome.Status != man.Outcome.Status {
		man.Run.Notes = append(man.Run.Notes, "the witness run ended "+w.res.Manifest.Outcome.Status+", the traced run "+man.Outcome.Status)
	}
	m.Canonicalize(man)
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

// witnessDifferences lists what the witness run saw from outside the
// server that the traced run did not see at all.
func witnessDifferences(traced, witness *Result) []m.WitnessDifference {
	seen := observations(traced.Manifest, traced.Manifest)
	tells := tracerTells(traced.Manifest)
	only := observations(witness.Manifest, traced.Manifest)
	for k, v := range outsideDifferences(traced.outside, witness.outside, tracedPrograms(traced)) {
		only[k] = v
	}
	var out []m.WitnessDifference
	for subject, ev := range only {
		if _, ok := seen[subject]; ok {
			continue
		}
		out = append(out, m.WitnessDifference{Subject: subject, Traced: "nothing" + tells, Witness: strings.Join(ev, "; ")})
	}
	return out
}

// observations maps what a run did that can be seen from outside the
// server's processes (canaries read, sent, written or shown; hosts
// contacted, by registrable domain, so random labels do not count) to
// its evidence. Hits of variables the traced run did not plant are left
// out.
func observations(man, traced *m.Manifest) map[string][]string {
	out := map[string][]string{}
	add := func(subject, phase, evidence string) {
		if strings.HasSuffix(subject, " ") {
			return // a host without a name
		}
		if len(out[subject]) < 3 {
			out[subject] = append(out[subject], phase+": "+evidence)
		}
	}
	for _, ph := range man.Phases {
		for _, h := range ph.Canaries {
			if notPlantedIn(traced, h.Canary) {
				continue // the traced run did not have it (addWitnessOnlyCanaries)
			}
			if verb := canaryVerb(h.How); verb != "" {
				add("canary "+h.Canary+" "+verb, ph.Name, h.Evidence)
			}
		}
		for _, q := range ph.DNS {
			add("host "+hosts.Registrable(q.Name), ph.Name, "looked up "+q.Name)
		}
		for _, r := range ph.Requests {
			add("host "+hosts.Registrable(r.Host), ph.Name, r.Method+" "+r.Host)
		}
		for _, c := range ph.Network {
			if c.Category != m.ConnEgress {
				continue
			}
			if c.Name != "" {
				add("host "+hosts.Registrable(c.Name), ph.Name, c.Op+" "+c.Name)
			} else if c.Address != "" {
				// A connection to an address, not a name: by address,
				// port and what the sink saw on it.
				add(fmt.Sprintf("connection %s %s:%d %s", c.Proto, c.Address, c.Port, cmp.Or(c.Protocol, "unseen")), ph.Name, c.Op+" "+c.Address)
			}
		}
	}
	for k, v := range out {
		slices.Sort(v)
		out[k] = v
	}
	return out
}

// canaryVerb groups the ways a canary shows by what an outside observer
// can see: a read (the trace's or the access-time witness's), data sent
// to the network, a file written, text given to the client. Ways only the
// trace sees (argv, renames) have no verb.
func canaryVerb(how string) string {
	switch how {
	case m.HowFileRead, m.HowFileReadWitness:
		return "read"
	case m.HowSent:
		return "sent"
	case m.HowWrittenToFile:
		return "written to a file"
	case m.HowMCPOutput, m.HowServerRequest, m.HowNotification, m.HowStderr, m.HowStdout:
		return "shown to the client"
	}
	return ""
}

// tracerTells names the reads by which the traced run could have noticed
// the tracer, for the evidence.
func tracerTells(man *m.Manifest) string {
	var paths []string
	for _, ph := range man.Phases {
		for _, f := range ph.Files {
			if f.Category == m.CatAntiAnalysis && !slices.Contains(paths, f.Path) {
				paths = append(paths, f.Path)
			}
		}
	}
	if len(paths) == 0 {
		return ""
	}
	slices.Sort(paths)
	if len(paths) > 3 {
		paths = paths[:3]
	}
	return " (it read " + strings.Join(paths, ", ") + ")"
}
