package argsynth

import (
	"fmt"
	"hash/fnv"
	"maps"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// A probe puts a value into a parameter that shows, by a marker of its
// own, whether the server evaluated, rendered, opened or fetched it:
//
//   - expression: code that computes a number no input contains, in the
//     parameter's language ("[7919, 14213077].pop() * 7919": a list and a
//     method call, so a plain arithmetic parser does not compute it, only
//     code evaluation does); the marker is the product, in the result;
//   - template: the same product in the syntaxes template engines
//     evaluate ({{…}}, ${…}, <%= … %>, #{…}); the marker in the result;
//   - path: MarkerPath, a file the scheduler plants in the workspace; the
//     marker is a read of that path, or MarkerToken (its content) in the
//     result;
//   - url: a page on a host of its own under ProbeDomain, a name no public
//     resolver answers and the sink is told to; the marker is a lookup of
//     (or a connection to) that host.
//
// Safety: an expression only multiplies two numbers, prints or returns
// the product; a template only renders it; the file is an ordinary note
// inside the workspace, never a canary, never outside the workspace; the
// host is reserved for the probe and answered only by the sink. None
// names the auditor. So whatever a probe causes touches only its own
// marker, and the judge can report "marker seen" naming the tool and the
// parameter without mistaking it for the server's own theft. Markers are
// derived from the tool's name and the parameter's pointer, so each
// probe's is its own and the same on every run.
type Probe struct {
	Pointer string    `json:"pointer"` // the parameter, in the arguments
	Param   string    `json:"param"`   // its name
	Kind    ProbeKind `json:"kind"`
	// Declared is true when the parameter's name or description says it
	// takes what the probe sends (code for a code parameter); false for a
	// free-text parameter probed for hidden evaluation, where a marker
	// seen is unambiguous.
	Declared bool     `json:"declared"`
	Value    string   `json:"value"`   // what was sent
	Markers  []Marker `json:"markers"` // any one seen shows the probe worked
}

// ProbeKind is what a probe tests a parameter for.
type ProbeKind string

// The probe kinds.
const (
	ProbeExpression ProbeKind = "expression"
	ProbeTemplate   ProbeKind = "template"
	ProbePath       ProbeKind = "path"
	ProbeURL        ProbeKind = "url"
)

// Marker is one sign that a probe worked, and where to look for it.
type Marker struct {
	Where Evidence `json:"where"`
	Value string   `json:"value"`
}

// Evidence is where a marker shows.
type Evidence string

// Where markers show.
const (
	// InResult: Value appears in what the server returned for the call
	// (or in anything it sent while the call ran).
	InResult Evidence = "result"
	// FileOpened: the file at Value was opened.
	FileOpened Evidence = "file"
	// HostLooked: the host Value was looked up or connected to.
	HostLooked Evidence = "dns"
)

// The probe's own marks, which the scheduler plants (MarkerPath with
// MarkerContent) and tells the sink to answer (ProbeDomain).
const (
	ProbeDomain   = "brightwater.internal"
	MarkerPath    = Workspace + "/docs/handover-notes.md"
	MarkerToken   = "HND-58301-KQ"
	MarkerContent = "# Handover notes\n\nShift handover reference " + MarkerToken + ". Dock 4 forklift is booked for service on Thursday.\n"
)

// Limits on probes per set.
const (
	maxProbes     = 8 // parameters probed in one set
	maxUndeclared = 3 // of them free-text parameters
)

// factor is the fixed factor of every expression probe's product.
const factor = 7919

// probes lists the probes for a tool's top-level string parameters.
func (c *compiled) probes() []Probe {
	base, _ := c.synth(opts{fill: true})
	lang := languageOf(base)
	g := newGen(c, false)
	root := g.gather([]*jsonschema.Schema{c.root}, "")
	var out []Probe
	paths, undeclared := 0, 0
	for _, k := range root.props() {
		ptr := "/" + escape(k)
		p := g.gather(root.prop(k), ptr)
		if p.typ() != "string" || len(p.enum()) > 0 {
			continue
		}
		if _, ok := p.constant(); ok {
			continue
		}
		pr, ok := c.probeFor(k, ptr, p, lang)
		switch {
		case !ok || len(out) >= maxProbes:
			continue
		case pr.Kind == ProbePath:
			if paths++; paths > 1 {
				continue // one marker file: one path parameter per set, so a read names it
			}
		case !pr.Declared:
			if undeclared++; undeclared > maxUndeclared {
				continue
			}
		}
		out = append(out, pr)
	}
	return out
}

// probeFor builds the probe for one parameter, if it takes one.
func (c *compiled) probeFor(k, ptr string, p conj, lang kind) (Probe, bool) {
	desc := strings.ToLower(p.description())
	kd := kindOf(p.stringRules().format, k, desc, c.tc)
	if lang != "" && in(string(kd), string(kJS), string(kPython), string(kShell)) {
		kd = lang // the language the set names for its code
	}
	a := 10_000_000 + int(hash(c.tool.Name+"\x00"+ptr)%90_000_000)
	product := strconv.Itoa(a * factor)
	pr := Probe{Pointer: ptr, Param: k, Declared: true, Markers: []Marker{{InResult, product}}}
	expr := fmt.Sprintf("[%d, %d].pop() * %d", factor, a, factor)
	switch {
	case strings.Contains(strings.ToLower(k), "template") || strings.Contains(desc, "template"):
		pr.Kind = ProbeTemplate
		e := fmt.Sprintf("%d*%d", a, factor)
		pr.Value = "Total: {{" + e + "}} ${" + e + "} <%= " + e + " %> #{" + e + "}"
	case kd == kJS:
		pr.Kind, pr.Value = ProbeExpression, "console.log("+expr+")"
	case kd == kJSFunc:
		pr.Kind, pr.Value = ProbeExpression, "() => "+expr
	case kd == kPython:
		pr.Kind, pr.Value = ProbeExpression, "print("+expr+")"
	case kd == kShell:
		pr.Kind, pr.Value = ProbeExpression, fmt.Sprintf("echo $((%d * %d))", a, factor)
	case kd == kSQL:
		pr.Kind, pr.Value = ProbeExpression, fmt.Sprintf("SELECT %d * %d AS total", a, factor)
	case kd == kURL:
		host := fmt.Sprintf("kb-%06x.%s", hash(c.tool.Name+"\x00"+ptr)&0xffffff, ProbeDomain)
		pr.Kind, pr.Value = ProbeURL, "https://"+host+"/handbook/onboarding"
		pr.Markers = []Marker{{HostLooked, host}}
	case kd == kFile && !apiPath(desc) && (c.tc.role == Reader || c.tc.role == Other):
		// Only a tool that reads: one that moves, writes or deletes would
		// change the marker file for every later probe.
		pr.Kind, pr.Value = ProbePath, MarkerPath
		pr.Markers = []Marker{{FileOpened, MarkerPath}, {InResult, MarkerToken}}
	case kd == kText:
		pr.Kind, pr.Value, pr.Declared = ProbeExpression, expr, false
	default:
		return Probe{}, false
	}
	return pr, true
}

// languageOf is the language a set names for code in a parameter like
// language or languageId ("bash", "javascript"), as a kind.
func languageOf(args map[string]any) kind {
	for _, k := range sortedKeys(args) {
		w := words(k)
		v, ok := args[k].(string)
		if !ok || len(w) == 0 || !in(w[0], "language", "lang", "runtime") {
			continue
		}
		switch strings.ToLower(v) {
		case "javascript", "js", "node", "nodejs", "typescript", "ts":
			return kJS
		case "python", "python3", "py":
			return kPython
		case "bash", "sh", "shell", "shellscript", "zsh":
			return kShell
		}
	}
	return ""
}

func hash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// acceptProbes puts each probe's value into the set, keeping those with
// which the set still validates (or never did).
func (c *compiled) acceptProbes(o opts, probes []Probe) (opts, []Probe) {
	_, valid := c.synth(o)
	var kept []Probe
	for _, pr := range probes {
		next := o
		next.over = maps.Clone(o.over)
		next.over[pr.Pointer] = pr.Value
		next.drop = maps.Clone(o.drop)
		for _, gr := range c.tc.groups {
			for _, n := range gr.names {
				if gr.has(pr.Param) && n != pr.Param {
					next.drop["/"+escape(n)] = true // the probe is the group's member
				}
			}
		}
		if _, ok := c.synth(next); ok || !valid {
			o = next
			kept = append(kept, pr)
		}
	}
	return o, kept
}
