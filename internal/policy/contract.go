package policy

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/hosts"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// A tool's annotations are a contract the client relies on: it may run a
// read-only tool without asking, and a closed-world one without fearing
// for the network. A call that breaks it is judged by what it did and
// what it claimed, both in the evidence:
//
//   - readOnlyHint: true, and the call wrote, deleted or moved a file of
//     the user's (in the workspace, in the home outside programs'
//     dot-directories, or a file that existed before the run), other
//     than the server's own data and git's database;
//   - openWorldHint: false, and the call contacted a host before it
//     answered, other than one the configuration or the call supplied or
//     the server's own service;
//   - destructiveHint: false (on a tool not read-only), and the call
//     deleted, cut, rewrote or moved away a file that existed before the
//     run.

// hints are the behavior hints of a tool's annotations; nil when absent.
type hints struct {
	ReadOnly    *bool `json:"readOnlyHint"`
	Destructive *bool `json:"destructiveHint"`
	OpenWorld   *bool `json:"openWorldHint"`
}

func toolHints(t m.Tool) hints {
	var h hints
	if len(t.Annotations) > 0 {
		_ = json.Unmarshal(t.Annotations, &h) // hostile text: what does not parse claims nothing
	}
	return h
}

func is(b *bool, v bool) bool { return b != nil && *b == v }

// contractFindings judge a tool call's phase against the called tool's
// annotations.
func contractFindings(pe *phaseEval) []Finding {
	tool, ok := pe.calledTool()
	if !ok {
		return nil
	}
	h := toolHints(tool)
	var out []Finding
	add := func(hint, claim string, effects []string) {
		if len(effects) == 0 {
			return
		}
		ev := claim + "; " + strings.Join(effects[:min(len(effects), 3)], "; ")
		if len(effects) > 3 {
			ev += fmt.Sprintf("; … (%d in all)", len(effects))
		}
		out = append(out, Finding{Severity: High, Kind: KindContract, Phase: pe.phase.Name, Subject: tool.Name + " " + hint,
			Summary: fmt.Sprintf("tool %s is annotated %s but its call did otherwise", tool.Name, claim), Evidence: ev})
	}
	if is(h.ReadOnly, true) {
		add("readOnlyHint", "readOnlyHint: true", pe.userWrites())
	}
	if is(h.OpenWorld, false) {
		add("openWorldHint", "openWorldHint: false", pe.contactedHosts())
	}
	if is(h.Destructive, false) && !is(h.ReadOnly, true) {
		var destroyed []string
		for _, d := range pe.phase.Destroyed {
			destroyed = append(destroyed, d.How+" "+d.Path)
		}
		add("destructiveHint", "destructiveHint: false", destroyed)
	}
	return out
}

// calledTool is the tool whose call the phase holds.
func (pe *phaseEval) calledTool() (m.Tool, bool) {
	for _, c := range pe.man.Calls {
		if c.Phase != pe.phase.Name || c.Kind != "tool" {
			continue
		}
		for _, t := range pe.man.Tools {
			if t.Name == c.Name {
				return t, true
			}
		}
	}
	return m.Tool{}, false
}

// background are the hosts and paths the server used outside any call
// (at startup, at idle): its own timers' work, which a call's window may
// catch too without the call having asked for it.
func (pe *phaseEval) background() map[string]bool {
	if pe.bg != nil {
		return pe.bg
	}
	pe.bg = map[string]bool{}
	for _, ph := range pe.man.Phases {
		if ph.Name != m.PhaseStartup && ph.Name != m.PhaseIdle {
			continue
		}
		for _, c := range ph.Network {
			pe.bg[strings.ToLower(strings.TrimSuffix(c.Name, "."))], pe.bg[c.Address] = true, true
		}
		for _, f := range ph.Files {
			if isWrite(f.Access) {
				pe.bg[f.Path] = true
			}
		}
	}
	delete(pe.bg, "")
	return pe.bg
}

// userWrites are the phase's changes to the user's files: successful
// writes, creations, deletions and moves in the workspace (git's own
// database aside) or in the home outside the dot-directories programs
// keep their data in, and every file that existed before the run and was
// destroyed; the server's own data directory is not the user's, a path
// it also wrote outside any call is its own timers' work, and a file an
// earlier call of another tool was asked to put its output in is that
// call's late effect (@playwright/mcp's screenshot lands in the next
// call's window). A file destroyed is listed whoever named it.
func (pe *phaseEval) userWrites() []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range pe.phase.Destroyed {
		seen[d.Path] = true
		out = append(out, d.How+" "+d.Path)
	}
	for _, f := range pe.phase.Files {
		if !isWrite(f.Access) || f.Result != m.ResultOK || seen[f.Path] || ownData(pe.own, f.Path) || pe.background()[f.Path] || pe.named(f.Path, true) {
			continue
		}
		rel, ws := strings.CutPrefix(f.Path, "<workspace>/")
		home, inHome := strings.CutPrefix(f.Path, "~/")
		switch {
		case ws && !strings.Contains("/"+rel+"/", "/.git/"):
		case inHome && (!strings.HasPrefix(home, ".") || f.Category != m.CatHome):
			// A visible home file, or a dotfile the table names.
		default:
			continue
		}
		seen[f.Path] = true
		out = append(out, f.Access+" "+f.Path)
	}
	return out
}

// contactedHosts are the hosts the phase's call contacted before it
// answered, except those the configuration or the call supplied, the
// server's own service, and those it also used outside any call.
func (pe *phaseEval) contactedHosts() []string {
	var out []string
	seen := map[string]bool{}
	e := pe.egress
	for _, c := range pe.phase.Network {
		host := strings.ToLower(strings.TrimSuffix(c.Name, "."))
		if host == "" {
			host = c.Address
		}
		if c.Category != m.ConnEgress || c.AfterAnswer || seen[host] || e.supplied[host] || e.byCall[pe.phase.Name][host] ||
			hosts.SameService(host, e.service) || pe.pol.Allow.host(host) || pe.background()[host] {
			continue
		}
		seen[host] = true
		out = append(out, "contacted "+endpoint(c))
	}
	return out
}
