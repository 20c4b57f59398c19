package classify

import (
	"time"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// Observed is something the server said outside the trace: a canary found
// in its answers or messages, or a message kept for judging (the observer
// of what it says, internal/observe). It belongs to the window holding
// Time, or, when Phase is set, to that phase (canaries in the lists the
// handshake read belong to startup, those in a call's result to the
// call). Classify places them, so that one package writes a run's phases.
type Observed struct {
	Time    time.Time
	Phase   string
	Canary  *m.CanaryHit
	Message *m.ServerMessage
}

// place adds the observations, the late alerts and the trace-incomplete
// alert to their phases, and marks the hits of canaries the server was
// given.
func (c *classifier) place() {
	last := c.phases[max(0, len(c.in.Windows)-1)] // before phaseNamed adds any
	for _, o := range c.in.Observed {
		p := c.phaseAt(o.Time)
		if o.Phase != "" {
			p = c.phaseNamed(o.Phase)
		}
		if o.Canary != nil {
			p.Canaries = append(p.Canaries, *o.Canary)
		}
		if o.Message != nil {
			p.Messages = append(p.Messages, *o.Message)
		}
	}
	last.Alerts = append(last.Alerts, c.in.LateAlerts...)
	if c.in.TraceTruncated {
		last.Alerts = append(last.Alerts, m.Alert{Kind: m.AlertTraceIncomplete,
			Detail: "the trace exceeded its size or analysis limit; later behavior is missing"})
	}
	given := map[string]bool{}
	for _, n := range c.in.Given {
		given["env:"+n] = true
	}
	for _, p := range c.phases {
		for i := range p.Canaries {
			p.Canaries[i].Given = given[p.Canaries[i].Canary]
		}
	}
}

// phaseNamed is the first phase of that name, made when no window has it.
func (c *classifier) phaseNamed(name string) *phaseAcc {
	for _, p := range c.phases {
		if p.Name == name {
			return p
		}
	}
	p := newPhaseAcc(name, time.Time{})
	c.phases = append(c.phases, p)
	return p
}

// PhaseAt names the window holding t: the last one started by then, or
// the first (the rule that places observations and trace events).
func PhaseAt(windows []Window, t time.Time) string {
	for i := len(windows) - 1; i >= 0; i-- {
		if !t.Before(windows[i].Start) {
			return windows[i].Name
		}
	}
	if len(windows) == 0 {
		return m.PhaseStartup
	}
	return windows[0].Name
}
