// Package diff compares two behavior manifests semantically: keyed set
// differences per phase and kind of behavior, not a text diff. It is how a
// rug pull shows: a release that contacts a new host during one tool call,
// sends a new field to the same host, or changes a tool description.
//
// What changed is listed as Changes; what the policy makes of the new
// behavior is listed as Findings.
package diff

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/mcp-audit/mcp-audit/internal/argsynth"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Change operations.
const (
	Added   = "added"
	Removed = "removed"
	Changed = "changed"
)

// Change is one difference in behavior. Detail is the line people read
// (a word diff shows as [-removed-]{+added+}); the same facts are in
// Field, Before, After and Words for programs.
type Change struct {
	Op    string `json:"op"`
	Area  string `json:"area"` // one of manifest.Area*
	Phase string `json:"phase,omitempty"`
	// Subject identifies what changed (a path, host, tool name).
	Subject string `json:"subject"`
	Detail  string `json:"detail,omitempty"`
	// Field names what of the subject changed: "description", "title",
	// "input schema", "body field", "email in payload", "host in payload",
	// "query parameter", "header", "status", "outcome", "call plan".
	Field string `json:"field,omitempty"`
	// Before and After are the field's old and new value (a payload item
	// removed or added, a call's outcome).
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Words is a changed text as a word diff.
	Words []Word `json:"words,omitempty"`
}

// Word is a run of a word diff: kept, added or removed text.
type Word struct {
	Op   string `json:"op"` // same, added or removed
	Text string `json:"text"`
}

// Version names one side of a comparison.
type Version struct {
	Ecosystem string `json:"ecosystem"`
	Name      string `json:"name"`
	Version   string `json:"version"`
}

// Result is a comparison.
type Result struct {
	Old      Version          `json:"old"`
	New      Version          `json:"new"`
	Changes  []Change         `json:"changes"`
	Findings []policy.Finding `json:"findings"`
	FailOn   policy.Severity  `json:"fail_on"`
	Verdict  string           `json:"verdict"` // pass, incomplete or fail
	// Incomplete are why the new version's audit could not observe what a
	// verdict needs (internal/coverage); the verdict is incomplete unless
	// the policy allows it.
	Incomplete []string `json:"incomplete,omitempty"`
	// Coverage is the new version's coverage summary line.
	Coverage string `json:"coverage,omitempty"`
	// AllowIncomplete: the policy accepted an incomplete audit.
	AllowIncomplete bool           `json:"allow_incomplete,omitempty"`
	Counts          map[string]int `json:"counts"`
	// AcceptedRisk is the baseline's record of harmful findings a reviewer
	// accepted; they fail all the same, and reports show why they were
	// accepted.
	AcceptedRisk *m.AcceptedRisk `json:"accepted_risk,omitempty"`
}

// Compare diffs old against new and judges the new behavior with pol.
func Compare(old, new *m.Manifest, pol policy.Policy) *Result {
	r := &Result{
		Old: Version{old.Target.Ecosystem, old.Target.Name, old.Target.Version},
		New: Version{new.Target.Ecosystem, new.Target.Name, new.Target.Version},
	}
	if old.Outcome.Status != new.Outcome.Status {
		r.add(Change{Op: Changed, Area: m.AreaOutcome, Subject: "status", Detail: old.Outcome.Status + " → " + new.Outcome.Status,
			Field: "status", Before: old.Outcome.Status, After: new.Outcome.Status})
	}
	r.tools(old, new)
	r.surface(old, new)
	r.phases(old, new)
	r.requests(old, new)
	r.calls(old, new)
	r.groupUncalled(old, new)
	r.findings(old, new, pol)
	r.dependencies(old, new)
	r.annotationFindings(old, new)
	r.coverageFindings(old, new)
	r.eraFindings(old, new)
	r.AcceptedRisk = old.AcceptedRisk
	r.judge(new, pol)
	slices.SortStableFunc(r.Changes, func(a, b Change) int {
		return cmp.Or(strings.Compare(areaOrder(a.Area), areaOrder(b.Area)), strings.Compare(a.Phase, b.Phase),
			strings.Compare(a.Subject, b.Subject), strings.Compare(a.Op, b.Op), strings.Compare(a.Detail, b.Detail))
	})
	r.Changes = slices.CompactFunc(r.Changes, func(a, b Change) bool {
		return a.Op == b.Op && a.Area == b.Area && a.Phase == b.Phase && a.Subject == b.Subject && a.Detail == b.Detail
	})
	if r.Changes == nil {
		r.Changes = []Change{}
	}
	if r.Findings == nil {
		r.Findings = []policy.Finding{}
	}
	return r
}

func areaOrder(a string) string {
	order := []string{m.AreaOutcome, m.AreaCanary, m.AreaTool, m.AreaRequest, m.AreaNetwork, m.AreaDNS, m.AreaFile, m.AreaProcess, m.AreaAlert,
		m.AreaServerRequest, m.AreaCall, m.AreaDependency}
	if i := slices.Index(order, a); i >= 0 {
		return fmt.Sprintf("%02d", i)
	}
	return "99" + a
}

func (r *Result) add(c Change) { r.Changes = append(r.Changes, c) }

// tools compares the advertised tools by name.
func (r *Result) tools(old, new *m.Manifest) {
	before := map[string]m.Tool{}
	for _, t := range old.Tools {
		before[t.Name] = t
	}
	after := map[string]m.Tool{}
	for _, t := range new.Tools {
		after[t.Name] = t
		o, ok := before[t.Name]
		switch {
		case !ok:
			r.add(Change{Op: Added, Area: m.AreaTool, Subject: t.Name, Detail: textsafe.OneLine(t.Description, 160)})
		case o.Digest != t.Digest:
			r.add(toolChange(o, t))
		}
	}
	for _, t := range old.Tools {
		if _, ok := after[t.Name]; !ok {
			r.add(Change{Op: Removed, Area: m.AreaTool, Subject: t.Name})
		}
	}
}

// TextDiff renders a word-level diff as "…kept [-removed-]{+added+}…",
// with long unchanged stretches shortened.
func TextDiff(a, b string) string {
	dmp := diffmatchpatch.New()
	diffs := dmp.DiffCleanupSemantic(dmp.DiffMain(a, b, false))
	var sb strings.Builder
	for _, d := range diffs {
		// Whitespace is folded, and kept outside the markers, so words
		// never run together: "an email. {+<IMPORTANT>…+}".
		t := spaces.ReplaceAllString(d.Text, " ")
		core := strings.TrimSpace(t)
		lead, trail := t[:len(t)-len(strings.TrimLeft(t, " "))], t[len(strings.TrimRight(t, " ")):]
		switch {
		case core == "":
			sb.WriteString(t)
		case d.Type == diffmatchpatch.DiffDelete:
			sb.WriteString(lead + "[-" + core + "-]" + trail)
		case d.Type == diffmatchpatch.DiffInsert:
			sb.WriteString(lead + "{+" + core + "+}" + trail)
		default:
			if len(t) > 60 {
				t = t[:25] + " … " + t[len(t)-25:]
			}
			sb.WriteString(t)
		}
	}
	return strings.TrimSpace(sb.String())
}

type entry struct {
	area, phase, key, detail string
}

// entries flattens the keyed behavior of a manifest.
func entries(man *m.Manifest) map[string]entry {
	out := map[string]entry{}
	put := func(e entry) { out[e.area+"\x00"+e.phase+"\x00"+e.key] = e }
	for _, p := range man.Phases {
		for _, f := range p.Files {
			d := f.Category
			if f.Target != "" {
				d += ", -> " + f.Target
			}
			put(entry{m.AreaFile, p.Name, fmt.Sprintf("%s %s (%s)", f.Access, f.Path, f.Result), d})
		}
		for _, pr := range p.Processes {
			put(entry{m.AreaProcess, p.Name, strings.Join(pr.Argv, " "), pr.Path + " " + pr.Result})
		}
		for _, c := range p.Network {
			host := c.Name
			if host == "" {
				host = c.Address
			}
			d := c.Category
			if c.SNI != "" || c.Protocol != "" {
				d += fmt.Sprintf(", %s sni=%s tls=%s", c.Protocol, c.SNI, c.TLS)
			}
			if c.AfterAnswer {
				d += afterAnswerNote
			}
			put(entry{m.AreaNetwork, p.Name, fmt.Sprintf("%s %s %s:%d", c.Proto, c.Op, host, c.Port), d})
		}
		for _, q := range p.DNS {
			d := q.Server
			if q.AfterAnswer {
				d += afterAnswerNote
			}
			put(entry{m.AreaDNS, p.Name, q.Name + " " + q.Type, strings.TrimPrefix(d, ", ")})
		}
		for _, h := range p.Canaries {
			put(entry{m.AreaCanary, p.Name, h.Canary + " " + h.How + " " + h.Evidence, h.Encoding})
		}
		for _, a := range p.Alerts {
			put(entry{m.AreaAlert, p.Name, a.Kind + ": " + a.Detail, ""})
		}
		for _, s := range p.ServerRequests {
			put(entry{m.AreaServerRequest, p.Name, s.Method, s.Answer})
		}
	}
	return out
}

// afterAnswerNote marks an entry of a call phase that came after the
// call's answer: it happened in that window, not necessarily because of
// that call.
const afterAnswerNote = ", after the call was answered (not attributable to it)"

// phases lists behavior added and removed, per phase.
func (r *Result) phases(old, new *m.Manifest) {
	before, after := entries(old), entries(new)
	for k, e := range after {
		if _, ok := before[k]; !ok {
			r.add(Change{Op: Added, Area: e.area, Phase: e.phase, Subject: e.key, Detail: e.detail})
		}
	}
	for k, e := range before {
		if _, ok := after[k]; !ok {
			r.add(Change{Op: Removed, Area: e.area, Phase: e.phase, Subject: e.key, Detail: e.detail})
		}
	}
}

// groupUncalled replaces the removals of each call the new audit did not
// make with one change saying so.
func (r *Result) groupUncalled(old, new *m.Manifest) {
	uncalled := uncalledPhases(old, new)
	if len(uncalled) == 0 {
		return
	}
	notCompared := map[string]int{}
	kept := r.Changes[:0]
	for _, c := range r.Changes {
		if _, ok := uncalled[c.Phase]; ok && c.Op == Removed {
			notCompared[c.Phase]++
			continue
		}
		kept = append(kept, c)
	}
	r.Changes = kept
	for phase, name := range uncalled {
		r.add(Change{Op: Removed, Area: m.AreaCall, Phase: phase, Subject: name, Field: "call plan",
			Detail: fmt.Sprintf("not called in the new audit: %d entries of its behavior not compared", notCompared[phase])})
	}
}

// uncalledPhases are the calls the old audit made and the new one did
// not (another call plan, --tool, a skipped call): their behavior is not
// gone, it was not observed, so it is one change per call instead of a
// removal per entry. Phase to the call's name.
func uncalledPhases(old, new *m.Manifest) map[string]string {
	made := map[string]bool{}
	for _, p := range new.Phases {
		made[p.Name] = true
	}
	for _, c := range new.Calls {
		made[c.Phase] = true
	}
	out := map[string]string{}
	for _, c := range old.Calls {
		if !made[c.Phase] {
			out[c.Phase] = c.Name
		}
	}
	return out
}

type reqKey struct{ name, method, host, path string }

type reqAgg struct {
	phases                                  []string
	late                                    bool // some were after their call's answer
	fields, emails, hosts, queries, headers []string
}

func aggregate(man *m.Manifest) map[reqKey]*reqAgg {
	out := map[reqKey]*reqAgg{}
	for _, p := range man.Phases {
		for _, q := range p.Requests {
			k := reqKey{q.Name, q.Method, q.Host, q.Path}
			a := out[k]
			if a == nil {
				a = &reqAgg{}
				out[k] = a
			}
			a.phases = append(a.phases, p.Name)
			a.late = a.late || q.AfterAnswer
			a.fields = append(a.fields, q.BodyFields...)
			a.emails = append(a.emails, q.Emails...)
			a.hosts = append(a.hosts, q.Hosts...)
			a.queries = append(a.queries, q.QueryKeys...)
			a.headers = append(a.headers, q.HeaderNames...)
		}
	}
	return out
}

func (k reqKey) String() string {
	host := k.host
	if host == "" {
		host = k.name
	}
	return k.method + " " + host + k.path
}

func newItems(before, after []string) []string {
	var out []string
	for _, x := range after {
		if !slices.Contains(before, x) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return out
}

// requests compares what was sent to the same endpoint: new payload
// fields, new addresses and hosts in payloads.
func (r *Result) requests(old, new *m.Manifest) {
	before, after := aggregate(old), aggregate(new)
	for k, a := range after {
		b, ok := before[k]
		if !ok {
			r.add(Change{Op: Added, Area: m.AreaRequest, Phase: a.phases[0], Subject: k.String(),
				Detail: fmt.Sprintf("fields %v, emails %v, hosts %v", uniq(a.fields), uniq(a.emails), uniq(a.hosts)) + a.lateNote()})
			continue
		}
		for _, d := range []struct {
			what     string
			old, new []string
		}{
			{"body field", b.fields, a.fields}, {"email in payload", b.emails, a.emails},
			{"host in payload", b.hosts, a.hosts}, {"query parameter", b.queries, a.queries}, {"header", b.headers, a.headers},
		} {
			for _, x := range newItems(d.old, d.new) {
				r.add(Change{Op: Added, Area: m.AreaRequest, Phase: a.phases[0], Subject: k.String(), Detail: d.what + " " + x, Field: d.what, After: x})
			}
			for _, x := range newItems(d.new, d.old) {
				r.add(Change{Op: Removed, Area: m.AreaRequest, Phase: a.phases[0], Subject: k.String(), Detail: d.what + " " + x, Field: d.what, Before: x})
			}
		}
	}
	for k, b := range before {
		if _, ok := after[k]; !ok {
			r.add(Change{Op: Removed, Area: m.AreaRequest, Phase: b.phases[0], Subject: k.String()})
		}
	}
}

func (a *reqAgg) lateNote() string {
	if a.late {
		return afterAnswerNote
	}
	return ""
}

func uniq(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}

// calls compares call outcomes.
func (r *Result) calls(old, new *m.Manifest) {
	before := map[string]m.Call{}
	for _, c := range old.Calls {
		before[c.Phase] = c
	}
	for _, c := range new.Calls {
		if o, ok := before[c.Phase]; ok && o.Outcome != c.Outcome {
			r.add(Change{Op: Changed, Area: m.AreaCall, Phase: c.Phase, Subject: c.Name, Detail: o.Outcome + " → " + c.Outcome,
				Field: "outcome", Before: o.Outcome, After: c.Outcome})
		}
	}
}

var reEmail = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,24}`)

// suppliedEmails are the addresses the caller gave the server: the
// synthesized one and any in the arguments the audit sent.
func suppliedEmails(man *m.Manifest) []string {
	out := []string{argsynth.Email}
	for _, c := range man.Calls {
		for _, e := range reEmail.FindAllString(string(c.Args), -1) {
			if !policy.ServerChosen(man, c, e) { // a schema's const or enum is the server's choice
				out = append(out, strings.ToLower(e))
			}
		}
	}
	return out
}

// findings judges the new behavior: absolute findings of the new version
// that the old version did not have (by kind and subject, wherever they
// happen), plus changes that only a comparison reveals.
func (r *Result) findings(old, new *m.Manifest, pol policy.Policy) {
	seen := map[string]bool{}
	for _, f := range policy.Evaluate(old, pol) {
		seen[f.Kind+"\x00"+f.Subject] = true
	}
	added := map[string]bool{}
	for _, f := range policy.Evaluate(new, pol) {
		k := f.Kind + "\x00" + f.Subject
		if added[k] || f.Kind == policy.KindOutcome {
			continue
		}
		switch {
		case seen[k] && policy.Harmful(f):
			// Harm the baseline had too still fails: a baseline is no
			// allow-list for it.
			f.Summary = "still present: " + f.Summary
		case seen[k]:
			continue
		default:
			switch f.Kind {
			case policy.KindProcess:
				f.Severity = policy.Medium // a process the reviewed version did not start
			case policy.KindHost, policy.KindTelemetry:
				f.Severity = policy.High // a host the reviewed version never used, whoever asked
			}
			f.Summary = "new: " + f.Summary
		}
		added[k] = true
		r.Findings = append(r.Findings, f)
	}
	supplied := suppliedEmails(new)
	for _, c := range r.Changes {
		switch {
		case c.Area == m.AreaTool && c.Op == Changed && strings.HasPrefix(c.Detail, "description:"):
			r.Findings = append(r.Findings, policy.Finding{Severity: policy.Medium, Kind: policy.KindTool, Subject: surfaceName(c.Subject),
				Summary: surfaceName(c.Subject) + " changed its description", Evidence: textsafe.OneLine(c.Detail, 400)})
		case c.Area == m.AreaTool && c.Op == Changed:
			r.Findings = append(r.Findings, policy.Finding{Severity: policy.Low, Kind: policy.KindTool, Subject: "tool " + c.Subject,
				Summary: "tool " + c.Subject + " changed its input schema"})
		case c.Area == m.AreaTool && c.Op == Added:
			r.Findings = append(r.Findings, policy.Finding{Severity: policy.Low, Kind: policy.KindTool, Subject: surfaceName(c.Subject),
				Summary: "new " + surfaceName(c.Subject), Evidence: c.Detail})
		case c.Area == m.AreaRequest && c.Op == Added && strings.HasPrefix(c.Detail, "body field "):
			r.Findings = append(r.Findings, policy.Finding{Severity: policy.High, Kind: KindPayload, Phase: c.Phase,
				Subject: c.Subject + " " + c.Detail, Summary: "the payload to " + c.Subject + " gained a field",
				Evidence: strings.TrimPrefix(c.Detail, "body field ")})
		case c.Area == m.AreaRequest && c.Op == Added && strings.HasPrefix(c.Detail, "email in payload "):
			e := strings.TrimPrefix(c.Detail, "email in payload ")
			if slices.Contains(supplied, e) {
				continue
			}
			r.Findings = append(r.Findings, policy.Finding{Severity: policy.High, Kind: KindPayload, Phase: c.Phase,
				Subject: c.Subject + " " + c.Detail, Summary: "the payload to " + c.Subject + " carries an address the caller did not supply",
				Evidence: e})
		case c.Area == m.AreaRequest && c.Op == Added && strings.HasPrefix(c.Detail, "host in payload "):
			r.Findings = append(r.Findings, policy.Finding{Severity: policy.Medium, Kind: KindPayload, Phase: c.Phase,
				Subject: c.Subject + " " + c.Detail, Summary: "the payload to " + c.Subject + " names a new host",
				Evidence: strings.TrimPrefix(c.Detail, "host in payload ")})
		case c.Area == m.AreaRequest && c.Op == Added && strings.HasPrefix(c.Detail, "header "):
			r.Findings = append(r.Findings, policy.Finding{Severity: policy.Low, Kind: KindPayload, Phase: c.Phase,
				Subject: c.Subject + " " + c.Detail, Summary: "requests to " + c.Subject + " carry a new header",
				Evidence: strings.TrimPrefix(c.Detail, "header ")})
		}
	}
	slices.SortStableFunc(r.Findings, func(a, b policy.Finding) int {
		return cmp.Or(cmp.Compare(b.Severity, a.Severity), strings.Compare(a.Kind, b.Kind), strings.Compare(a.Subject, b.Subject))
	})
}

// KindPayload marks findings about what a request carries.
const KindPayload = "payload"
