package batch

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

//go:embed report.html
var reportTemplate string

type htmlFinding struct {
	Severity string `json:"severity"`
	Kind     string `json:"kind"`
	Phase    string `json:"phase"`
	Summary  string `json:"summary"`
	Evidence string `json:"evidence"`
}

type htmlPhase struct {
	Name     string `json:"name"`
	Outcome  string `json:"outcome,omitempty"`
	Files    int    `json:"files"`
	Net      int    `json:"net"`
	Procs    int    `json:"procs"`
	DNS      int    `json:"dns"`
	Requests int    `json:"requests"`
	Canaries int    `json:"canaries"`
	Alerts   int    `json:"alerts"`
	// Call is what was sent in a call phase and what came back.
	Call string `json:"call,omitempty"`
}

type htmlServer struct {
	Server   string         `json:"server"`
	Target   string         `json:"target"`
	Version  string         `json:"version"`
	Status   string         `json:"status"`
	Reason   string         `json:"reason"`
	Verdict  string         `json:"verdict"`
	Counts   map[string]int `json:"counts"`
	Findings []htmlFinding  `json:"findings"`
	Hosts    []string       `json:"hosts"`
	Timeline []htmlPhase    `json:"timeline"`
	Tools    int            `json:"tools"`
}

// htmlReport renders the self-contained report. Data goes in as JSON with
// <, > and & escaped (json.Marshal's default), so nothing from a manifest
// can close the script element; the page builds the DOM with textContent.
func htmlReport(es []entry, now string) ([]byte, error) {
	data := struct {
		Generated string       `json:"generated"`
		Servers   []htmlServer `json:"servers"`
	}{Generated: now, Servers: []htmlServer{}}
	for _, e := range es {
		// Server-controlled text is cleaned here as in every renderer: the
		// page shows it with textContent, which would still render bidi
		// overrides and invisible characters.
		s := htmlServer{Server: line(e.Server), Target: line(e.Target), Version: line(e.Version), Reason: textsafe.OneLine(e.Reason, 600), Verdict: e.Verdict,
			Counts: nonNilCounts(e.Counts), Findings: []htmlFinding{}, Hosts: []string{}, Timeline: []htmlPhase{}}
		s.Status = e.Outcome
		if e.Status == StatusFailed {
			s.Status = "not audited"
		}
		if e.man != nil {
			for _, f := range e.Findings {
				s.Findings = append(s.Findings, htmlFinding{f.Severity.String(), f.Kind, textsafe.Line(f.Where(), 600), textsafe.Line(f.Summary, 1000), textsafe.Line(f.Evidence, 2000)})
			}
			for _, h := range hostsOf(e.man) {
				s.Hosts = append(s.Hosts, line(h))
			}
			s.Tools = len(e.man.Tools)
			calls := map[string]m.Call{}
			for _, c := range e.man.Calls {
				calls[c.Phase] = c
			}
			for _, p := range e.man.Phases {
				c := calls[p.Name]
				h := htmlPhase{Name: line(p.Name), Outcome: c.Outcome, Files: len(p.Files),
					Net: countEgress(p), Procs: len(p.Processes), DNS: len(p.DNS), Requests: len(p.Requests),
					Canaries: len(p.Canaries), Alerts: len(p.Alerts)}
				if c.Phase != "" {
					h.Call = textsafe.OneLine(fmt.Sprintf("%s %s %s → %s %s", c.Kind, c.Name, c.Args, c.Outcome, c.Detail), 300)
				}
				s.Timeline = append(s.Timeline, h)
			}
		}
		data.Servers = append(data.Servers, s)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // escapes <, > and &
	if err := enc.Encode(data); err != nil {
		return nil, err
	}
	return []byte(strings.Replace(reportTemplate, "{{DATA}}", strings.TrimSpace(buf.String()), 1)), nil
}

func countEgress(p m.Phase) int {
	n := 0
	for _, c := range p.Network {
		if c.Category == m.ConnEgress {
			n++
		}
	}
	return n
}

// hostsOf lists "host:port (phase)" of egress endpoints and names looked up.
func hostsOf(man *m.Manifest) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range man.Phases {
		add := func(h string) {
			key := h + " (" + p.Name + ")"
			if !seen[key] {
				seen[key] = true
				out = append(out, key)
			}
		}
		for _, c := range p.Network {
			if c.Category == m.ConnEgress {
				h := c.Name
				if h == "" {
					h = c.Address
				}
				add(fmt.Sprintf("%s:%d", h, c.Port))
			}
		}
		for _, d := range p.DNS {
			add(d.Name)
		}
	}
	sort.Strings(out)
	return out
}

// line is a server-controlled name on the page: one line, clean, bounded.
func line(s string) string { return textsafe.Line(s, 300) }
