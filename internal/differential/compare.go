package differential

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/manifest"
)

// Derived is an emission that follows the planted values: some of its
// fields are the same in the primary and the calibration run (so they do
// not vary by themselves) and different in the variant run, or the whole
// emission appears in one side only (Presence).
type Derived struct {
	Phase, Channel, Dest string
	// Fields are the fields that differ, each with its value in the
	// primary run and in the variant run (raw: the caller redacts them).
	Fields []FieldDiff
	// Presence: the primary and calibration runs made the emission and
	// the variant run did not, or the variant run alone made it
	// (Presence…).
	Presence string
	// Occurrence is its place among the emissions of its key.
	Occurrence int
	// shifted: the pair's records are exact twins of records the other
	// side made, so only their timing differs (dropShifted); shiftPair
	// names the two records' contents, and shiftNoise is how many records
	// of those two contents the runs with the same secrets made apart.
	shifted    bool
	shiftPair  string
	shiftNoise int
}

// FieldDiff is one field that differs with the planted values.
type FieldDiff struct {
	Name             string
	Primary, Variant string
	// kind is the field's kind (kindsOf) when its difference is one its
	// kind's noise explains (kindStats.noisy); Compare drops such fields while
	// the run has few of them.
	kind string
	// renamed: one run alone had it, beside another field only the other
	// run had (fieldDiffs).
	renamed bool
	// kinds are a small number's kinds, of which kind is the first noisy
	// one.
	kinds []string
}

// Bounds of a comparison's result.
const (
	maxDerived       = 200
	maxFieldsDerived = 8
)

// Presences of an emission made on one side only.
const (
	PresencePrimary = "only with the primary run's values"
	PresenceVariant = "only with the variant run's values"
	// PresenceSwapped: on the same channel, the runs with the same
	// secrets both made an emission the run with others did not, and
	// that run made one they did not: where it goes follows the planted
	// values (a secret spelled out by the choice of hosts).
	PresenceSwapped = "where it goes follows the planted values"
)

// absent marks a field or an emission one run does not have.
const absent = "(absent)"

// key is what records pair up by: the channel and the destination. The
// phase is not part of it (an emission made at startup in one run lands
// in the first call's window in another, as timers and the client's
// pace decide), except for a call's result, whose phase is the call.
type key struct{ phase, channel, dest string }

func keyOf(r Record) key {
	k := key{channel: r.Channel, dest: r.Dest}
	if r.Channel == ChannelResult {
		k.phase = r.Phase
	}
	return k
}

func group(rs []Record) (map[key][]Record, []key) {
	out := map[key][]Record{}
	var order []key
	for i, r := range rs {
		if i == MaxRecords {
			break
		}
		k := keyOf(r)
		if _, ok := out[k]; !ok {
			order = append(order, k)
		}
		out[k] = append(out[k], r)
	}
	return out, order
}

// beyondPaired are the records of ps past maxPaired that the runs with the
// same secrets both made (a twin in cs) and the secrets run did not (no
// twin in vs): each a difference of its whole content.
func beyondPaired(k key, ps []Record, psig []string, cvals, vvals map[string]int) []Derived {
	if len(ps) <= maxPaired {
		return nil
	}
	var out []Derived
	for i, r := range ps[maxPaired:] {
		if sig := psig[maxPaired+i]; cvals[sig] > 0 && vvals[sig] == 0 && !r.Caller {
			sum := sha256.Sum256([]byte(sig))
			out = append(out, Derived{Phase: r.Phase, Channel: k.channel, Dest: k.dest, Occurrence: maxPaired + i,
				Fields: []FieldDiff{{Name: "(record)", Primary: "sha256:" + hex.EncodeToString(sum[:]), Variant: absent, renamed: true}}})
		}
	}
	return out
}

// Compare lists what follows the planted values: primary and calibration
// are runs with the same secrets, variant a run with others. Records of a
// key pair up by content, not by order (a resolver's A and AAAA questions
// come in either order) nor by phase: each primary record with the
// calibration record it shares most fields with (what differs there
// varies by itself), then with the variant record it shares most of the
// remaining fields with; among equals, one of the same phase.
func Compare(primary, calibration, variant []Record) []Derived {
	p, order := group(primary)
	c, _ := group(calibration)
	v, vorder := group(variant)
	var out []Derived
	st := kindStats{}
	for _, k := range order {
		ps, cs, vs := p[k], c[k], v[k]
		if len(cs) == 0 {
			continue // not reproduced with the same secrets: it varies by itself
		}
		if len(vs) == 0 {
			if len(ps) == len(cs) {
				out = append(out, Derived{Phase: ps[0].Phase, Channel: k.channel, Dest: k.dest, Presence: PresencePrimary})
			}
			continue
		}
		psig, csig, vsig := signatures(ps), signatures(cs), signatures(vs)
		pvals, cvals, vvals := twins(psig), twins(csig), twins(vsig)
		out = append(out, beyondPaired(k, ps, psig, cvals, vvals)...)
		ci, vi := pairRuns(ps, cs, vs, psig, csig, vsig)
		for i, pr := range ps[:len(ci)] {
			if ci[i] < 0 || vi[i] < 0 || pr.Caller {
				continue // not reproduced with the same secrets, or what the caller asked for
			}
			if fd := fieldDiffs(pr, cs[ci[i]], vs[vi[i]], st); len(fd) > 0 {
				sp, sv := psig[i], vsig[vi[i]]
				d := Derived{Phase: pr.Phase, Channel: k.channel, Dest: k.dest, Fields: fd, Occurrence: i}
				if d.shifted = pvals[sv] > 0 && cvals[sv] > 0 && vvals[sp] > 0 && vvals[sv] > pvals[sv] && pvals[sp] > vvals[sp]; d.shifted {
					d.shiftPair = k.channel + "\x00" + k.dest + "\x00" + sp + "\x00" + sv
					d.shiftNoise = absDiff(pvals[sp], cvals[sp]) + absDiff(pvals[sv], cvals[sv])
				}
				out = append(out, d)
			}
		}
	}
	for _, k := range vorder {
		if len(p[k]) == 0 && len(c[k]) == 0 {
			out = append(out, Derived{Phase: v[k][0].Phase, Channel: k.channel, Dest: k.dest, Presence: PresenceVariant})
		}
	}
	noisy := st.noisy()
	for _, d := range out {
		for i, f := range d.Fields {
			if j := slices.IndexFunc(f.kinds, func(k string) bool { return noisy[k] }); j >= 0 {
				d.Fields[i].kind = f.kinds[j]
			}
		}
	}
	out = dropKindNoise(out)
	out = dropShifted(out)
	// Judged on every field that differs; reported on the first few.
	for i := range out {
		if len(out[i].Fields) > maxFieldsDerived {
			out[i].Fields = out[i].Fields[:maxFieldsDerived]
		}
	}
	swapped(out)
	slices.SortStableFunc(out, func(a, b Derived) int {
		return cmp.Or(cmp.Compare(a.Phase, b.Phase), cmp.Compare(a.Channel, b.Channel), cmp.Compare(a.Dest, b.Dest), cmp.Compare(a.Occurrence, b.Occurrence))
	})
	if len(out) > maxDerived {
		out = out[:maxDerived]
	}
	return out
}

// swapped marks the one-sided emissions of a channel that has both
// kinds. Not for results and messages: they go to the client whatever the
// secrets, so one present in some runs and another in others is which
// calls answered, not a destination chosen (server-github's merge answered
// in one run's later call and not another's).
func swapped(out []Derived) {
	sides := map[string]int{}
	for _, d := range out {
		if d.Channel == ChannelResult || d.Channel == ChannelMessage {
			continue
		}
		switch d.Presence {
		case PresencePrimary:
			sides[d.Channel] |= 1
		case PresenceVariant:
			sides[d.Channel] |= 2
		}
	}
	for i, d := range out {
		if d.Presence != "" && sides[d.Channel] == 3 && d.Channel != ChannelResult && d.Channel != ChannelMessage {
			out[i].Presence = PresenceSwapped
		}
	}
}

// maxPaired bounds the records of one key that are paired (pairing is
// quadratic in them); the records past it are compared by content alone
// (beyondPaired), so a flood of one lookup hides nothing after it.
const maxPaired = 64

// maxClockDeltas is how many different steps the fields a clock step
// apart may make in one record.
const maxClockDeltas = 3

// bestMatch is the unused record of rs that shares the most fields with
// r (only the fields of only, when set), then its phase, -1 when none is
// left. Ties go to the earliest. With callFirst (the calibration run), a
// call's emissions pair first with the same call's: the runs made the
// same calls (Derive leaves out those they did not), and a signed request
// of one call is otherwise the exact twin of another call's request made
// in the same second of another run (its date and signature), which, with
// the clock shim off (the runs then share a clock), made its own twin in
// the variant run look like a difference (@translated/lara-mcp signs
// every request over its time). The variant run pairs by the fields that
// did not vary, the phase only breaking ties: a request a slow call left
// running lands in the next call's window in one run and not another
// (@pinecone-database/mcp's client requests, under calls that timed
// out), and paired by phase with the other request there, its user agent
// looked secret-derived.
//
// The candidates are the first maxPaired records and, past them, the
// records of late, those of r's own phase: a call's request that a flood
// of another call's polling pushed past the bound in one run
// (firecrawl-mcp's crawl status, thousands of requests, moved a monitor's
// request from the 57th place to the 74th) otherwise paired with a
// polling request, every field a difference.
func bestMatch(r Record, rs []Record, used []bool, only map[string]bool, callFirst bool, late []int) int {
	best, bestN := -1, -1
	rf := fields(r)
	for j := range min(len(rs), maxPaired) + len(late) {
		i := j
		if j >= min(len(rs), maxPaired) {
			i = late[j-min(len(rs), maxPaired)]
		}
		if used[i] {
			continue
		}
		o := rs[i]
		n := 0
		for _, f := range o.Fields {
			if v, ok := rf[f.Name]; ok && v == f.Value && (only == nil || only[f.Name]) {
				n += 2
			}
		}
		switch {
		case callFirst && o.Phase == r.Phase && strings.HasPrefix(r.Phase, manifest.PhaseCallPrefix):
			n += 2*MaxFields + 1 // more than any fields can add
		case o.Phase == r.Phase:
			n++ // among equals, the same phase
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	return best
}

// pairRuns pairs the first maxPaired records of ps with records of cs
// and vs (the index of each one's partner, -1 for none). Exact twins
// first, then the best match of the rest: the calibration run's twins of
// the same call, then (bestMatch) its records of the same call, or any;
// the variant run's twins of the same call, then its twins anywhere, then
// the best match of the fields that did not vary. Twins first, since a
// record that has none takes the closest record left, which may be
// another's twin: a poll of an index that landed in a monitor's call
// window of one run (firecrawl-mcp) took that call's request, and the
// request then paired with a poll.
func pairRuns(ps, cs, vs []Record, psig, csig, vsig []string) (ci, vi []int) {
	n := min(len(ps), maxPaired)
	ci, vi = make([]int, n), make([]int, n)
	usedC, usedV := make([]bool, len(cs)), make([]bool, len(vs))
	cLate, vLate := latePhases(cs), latePhases(vs)
	cPhase, vPhase, vAny := twinIndexOf(cs, csig, true), twinIndexOf(vs, vsig, true), twinIndexOf(vs, vsig, false)
	take := func(at []int, used []bool, i, j int) {
		if at[i] < 0 && j >= 0 {
			at[i], used[j] = j, true
		}
	}
	for i := range n {
		ci[i], vi[i] = -1, -1
		take(ci, usedC, i, cPhase.next(phaseSig(ps[i], psig[i]), usedC))
		take(vi, usedV, i, vPhase.next(phaseSig(ps[i], psig[i]), usedV))
	}
	for i := range n {
		take(vi, usedV, i, vAny.next(psig[i], usedV))
	}
	for i := range n {
		if ci[i] < 0 {
			take(ci, usedC, i, bestMatch(ps[i], cs, usedC, nil, true, cLate[ps[i].Phase]))
		}
	}
	for i := range n {
		if ci[i] >= 0 && vi[i] < 0 {
			take(vi, usedV, i, bestMatch(ps[i], vs, usedV, stableFields(ps[i], cs[ci[i]]), false, vLate[ps[i].Phase]))
		}
	}
	return ci, vi
}

// latePhases are, for each phase, the indices of the records past
// maxPaired that have it, at most maxPaired each: bestMatch's candidates
// beyond the bound.
func latePhases(rs []Record) map[string][]int {
	out := map[string][]int{}
	for i := maxPaired; i < len(rs); i++ {
		if ph := rs[i].Phase; len(out[ph]) < maxPaired {
			out[ph] = append(out[ph], i)
		}
	}
	return out
}

// twinIndex finds a record's unused exact twins by its signature.
type twinIndex map[string][]int

func (t twinIndex) next(sig string, used []bool) int {
	for len(t[sig]) > 0 && used[t[sig][0]] {
		t[sig] = t[sig][1:]
	}
	if len(t[sig]) == 0 {
		return -1
	}
	return t[sig][0]
}

// twinIndexOf indexes the records by signature, and by phase too with
// byPhase.
func twinIndexOf(rs []Record, sigs []string, byPhase bool) twinIndex {
	t := twinIndex{}
	for i, s := range sigs {
		if byPhase {
			s = phaseSig(rs[i], s)
		}
		t[s] = append(t[s], i)
	}
	return t
}

// phaseSig is a record's signature within its phase.
func phaseSig(r Record, sig string) string { return r.Phase + "\x00" + sig }

func absDiff(a, b int) int {
	if a > b {
		return a - b
	}
	return b - a
}

// stableFields are the fields of p that c has with the same value.
func stableFields(p, c Record) map[string]bool {
	cm := fields(c)
	out := map[string]bool{}
	for _, f := range p.Fields {
		if v, ok := cm[f.Name]; ok && v == f.Value {
			out[f.Name] = true
		}
	}
	return out
}

// fieldDiffs are the fields of p that are the same in c (so not noise)
// and differ in v, and the fields only v has that neither p nor c has.
func fieldDiffs(p, c, v Record, st kindStats) []FieldDiff {
	pm, cm, vm := fields(p), fields(c), fields(v)
	var out []FieldDiff
	var steps []FieldDiff
	deltas := map[int64]bool{}
	for _, f := range p.Fields {
		if cv, ok := cm[f.Name]; !ok || cv != f.Value {
			continue // varies by itself
		}
		vv, ok := vm[f.Name]
		if !ok {
			vv = absent
		}
		switch {
		case vv == f.Value:
		case clockStep(f.Value, vv):
			steps = append(steps, FieldDiff{Name: f.Name, Primary: f.Value, Variant: vv})
			if x, ok := decimal(f.Value); ok {
				y, _ := decimal(vv)
				deltas[(x-y+60)%60] = true // a minute's wrap is the step it makes
			}
		default:
			out = append(out, FieldDiff{Name: f.Name, Primary: f.Value, Variant: vv})
		}
	}
	// A clock that started a moment later moves its fields by one step
	// (and its neighbour, a second's rounding, and a length that counts
	// one): numbers a few apart by many different steps are a secret
	// spelled in small numbers (two bits each), not a clock.
	if len(deltas) > maxClockDeltas {
		out = append(out, steps...)
	}
	st.add(p, pm, cm, vm)
	for i, d := range out {
		if smallNumber(d.Primary) && smallNumber(d.Variant) {
			out[i].kinds = kindsOf(d.Name, pm)
		}
	}
	for _, f := range v.Fields {
		_, inP := pm[f.Name]
		_, inC := cm[f.Name]
		if !inP && !inC && len(pm) == len(cm) {
			out = append(out, FieldDiff{Name: f.Name, Primary: absent, Variant: f.Value})
		}
	}
	// A field one run alone had beside one the other run alone had is a
	// key renamed (the secret spelled in a key: {"<secret>": true}), not
	// a field a run added.
	onlyP := slices.ContainsFunc(out, func(f FieldDiff) bool { return f.Variant == absent })
	onlyV := slices.ContainsFunc(out, func(f FieldDiff) bool { return f.Primary == absent })
	if onlyP && onlyV {
		for i := range out {
			if out[i].Primary == absent || out[i].Variant == absent {
				out[i].renamed = true
			}
		}
	}
	return out
}

// clockStep reports two decimal numbers a step of the clock apart: the
// runs start a second or two apart on the engine (it creates containers one
// at a time), so a time of day, an epoch second or a length that counts
// one shifts by a few between runs whatever the secrets, and the primary
// and calibration runs agree on it only by starting in the same second
// (the study's servers: log times "12:04:37" in stderr, a body's
// timestamp, a Content-Length). Within 3, or a minute's or hour's wrap
// (59 → 00). A secret spelled in decimal differs in far more: its
// longer numbers, or most of its split ones.
func clockStep(a, b string) bool {
	if ta, la, ok := timestamp(a); ok {
		tb, lb, ok := timestamp(b)
		d := ta.Sub(tb)
		return ok && la == lb && d > -4*time.Second && d < 4*time.Second
	}
	x, okA := decimal(a)
	y, okB := decimal(b)
	if !okA || !okB {
		return false
	}
	d := x - y
	if d < 0 {
		d = -d
	}
	return d <= 3 || (len(a) == 2 && len(b) == 2 && d >= 57 && d <= 59)
}

// decimal is s as a number when it is 1 to 18 decimal digits.
func decimal(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

func fields(r Record) map[string]string {
	m := make(map[string]string, len(r.Fields))
	for _, f := range r.Fields {
		if _, ok := m[f.Name]; !ok {
			m[f.Name] = f.Value
		}
	}
	return m
}

// A field of a record has a kind when other fields are made the same way:
// a JSON path's array elements (the same path, the index left out) or a
// text's tokens after the same word ("durationMs": 12 in each entry of a
// log listing) or before it (a unit: desktop-commander's get_config
// reports "heapUsed": "12.34 MB" and four more such figures). A kind of numbers that varied between the runs with the
// same secrets in some of its fields is noise in all of them: a timer's
// durations agree between two runs in one entry by chance and not in the
// next (okx-trade-mcp's trade_get_history lists its recent calls with
// their durations in milliseconds, and three of twenty, equal in the
// primary and calibration runs, differed in the secrets run: a high
// finding on one audit in four). Noise explains such a difference when
// the kind's fields that followed the runs are about as many as its rate
// of varying predicts, at most kindSlack standard deviations and one
// more; a secret spelled in numbers among a few random ones of the same
// kind differs in every number it holds, more than that rate predicts,
// and stays what it is. What noise may explain is bounded too: numbers of
// at most three digits, at most maxKindNoise of them in a run, all kinds
// together. The fields are counted, not their values (a secret's bits as
// 10 or 50 are two values and as many fields as bits), a listing that a
// later call repeats counting once: for each kind and values, the most
// any one emission has; and a result's structured content counting where
// its text repeats it (the specification asks for both: memory-report's
// two chance agreements were four fields, and over the four). Past the
// bound, every such field stays a difference: a secret spread over many
// noisy numbers is not noise.
// Below it, a secret in a few small numbers hidden among random ones of
// their kind passes (docs/sandbox.md, "What remains out of reach").
const (
	minKindFields   = 4
	minKindVaried   = 2
	kindSlack       = 2.0
	maxKindNoise    = 4
	maxNoisyDigits  = 3
	maxMemberDigits = 6
)

var reIndex = regexp.MustCompile(`\[[0-9]+\]`)

// maxKindSkip is how many numbers may stand between a token and the word
// that gives its kind.
const maxKindSkip = 2

// kindsOf are a field's kinds, none when it has none: a text token's by
// the word before it and by the word after it (a unit: "45.67 MB" in each
// entry of a memory report), skipping at most maxKindSkip numbers between
// (the fraction's digits), with how many it skipped; a JSON path's by the
// path without its indices. A token of a JSON string drops the string's
// own key too, so that the strings of one object's keys ("rss": "45.67
// MB", "heapUsed": "12.30 MB") are of a kind.
func kindsOf(name string, pm map[string]string) []string {
	i := strings.LastIndexByte(name, '#')
	if i < 0 {
		if !reIndex.MatchString(name) {
			return nil
		}
		return []string{reIndex.ReplaceAllString(name, "[]")}
	}
	n, err := strconv.Atoi(name[i+1:])
	if err != nil || n < 0 {
		return nil
	}
	prefix := name[:i]
	kind := reIndex.ReplaceAllString(prefix, "[]")
	if dot := strings.LastIndexByte(kind, '.'); dot >= 0 && !strings.HasSuffix(kind, "]") {
		kind = kind[:dot] + ".*"
	}
	word := func(from, step int) (string, int) {
		for k := 1; k <= maxKindSkip+1; k++ {
			j := from + step*k
			if j < 0 {
				return "", 0
			}
			w, ok := pm[prefix+"#"+strconv.Itoa(j)]
			if !ok || len(w) > 64 {
				return "", 0
			}
			if _, num := decimal(w); !num {
				return w, k
			}
		}
		return "", 0
	}
	var out []string
	if w, k := word(n, -1); w != "" {
		out = append(out, kind+"#after:"+w+"/"+strconv.Itoa(k))
	}
	if w, k := word(n, 1); w != "" {
		out = append(out, kind+"#before:"+w+"/"+strconv.Itoa(k))
	}
	return out
}

// kindStats are, for each kind, how many of its numeric fields the runs
// had (n), how many of them differed between the primary and calibration
// runs (varied, the rate q = varied/n), and how many of the others (equal
// in those, n-varied) differ in the variant run (flagged); noise predicts
// (n-varied)·q of those. They are pooled over the run's emissions: a
// report a server returns twice tells twice as much about its noise.
type kindStats map[string]*kindStat

type kindStat struct{ n, varied, flagged int }

// add counts the numeric fields of p.
func (st kindStats) add(p Record, pm, cm, vm map[string]string) {
	for _, f := range p.Fields {
		if x, ok := decimal(f.Value); !ok || x < 0 || len(f.Value) > maxMemberDigits {
			continue
		}
		cv, inC := cm[f.Name]
		vv, inV := vm[f.Name]
		if !inC || !inV {
			continue
		}
		for _, k := range kindsOf(f.Name, pm) {
			s := st[k]
			if s == nil {
				s = &kindStat{}
				st[k] = s
			}
			s.n++
			switch {
			case cv != f.Value:
				s.varied++
			case vv != f.Value && !clockStep(f.Value, vv):
				s.flagged++
			}
		}
	}
}

// noisy are the kinds whose differences noise explains.
func (st kindStats) noisy() map[string]bool {
	out := map[string]bool{}
	for k, s := range st {
		if s.n < minKindFields || s.varied < minKindVaried {
			continue
		}
		q := float64(s.varied) / float64(s.n)
		e := float64(s.n-s.varied) * q
		if float64(s.flagged) <= e+kindSlack*math.Sqrt(e*(1-q))+1 {
			out[k] = true
		}
	}
	return out
}

// smallNumber: a decimal of at most maxNoisyDigits digits.
func smallNumber(s string) bool {
	_, ok := decimal(s)
	return ok && len(s) <= maxNoisyDigits
}

// dropKindNoise leaves out the fields their kind's noise explains, while
// the run has at most maxKindNoise of them (counted as the comment on
// maxKindNoise says), and the emissions left with no field; past that,
// they all stay.
// The prefixes of a result record's fields (FromTexts names them "text"): its
// text content, and the structured content that repeats it.
const (
	resultText       = "text.content["
	resultStructured = "text.structuredContent."
)

func dropKindNoise(out []Derived) []Derived {
	most := map[[3]string]int{}
	for _, d := range out {
		in := map[[3]string]int{}
		mirrors := map[[2]string]int{} // a result's text content, which its structured content repeats
		for _, f := range d.Fields {
			if f.kind != "" && strings.HasPrefix(f.Name, resultText) {
				mirrors[[2]string{f.Primary, f.Variant}]++
			}
		}
		for _, f := range d.Fields {
			if pv := [2]string{f.Primary, f.Variant}; f.kind != "" && strings.HasPrefix(f.Name, resultStructured) && mirrors[pv] > 0 {
				mirrors[pv]-- // the same figure, counted where the text has it
				continue
			}
			if f.kind != "" {
				in[[3]string{f.kind, f.Primary, f.Variant}]++
			}
		}
		for t, n := range in {
			most[t] = max(most[t], n)
		}
	}
	total := 0
	for _, n := range most {
		total += n
	}
	if total == 0 || total > maxKindNoise {
		return out
	}
	kept := out[:0]
	for _, d := range out {
		if d.Presence != "" || len(d.Fields) == 0 {
			kept = append(kept, d)
			continue
		}
		fs := slices.DeleteFunc(d.Fields, func(f FieldDiff) bool { return f.kind != "" })
		if len(fs) > 0 {
			d.Fields = fs
			kept = append(kept, d)
		}
	}
	return kept
}

// The runs make the same emissions, but not always in the same order or
// number in each window: desktop-commander looks up its telemetry host
// and its bare domain as timers decide, and in one call's window the runs
// with the same secrets asked for the one and the secrets run for the
// other, each asking for both elsewhere (a high finding on a DNS name).
// A pair whose variant record is the exact twin of records the runs with
// the same secrets also made on that channel and destination, and whose
// primary record the twin of one the variant run made, the variant's
// more often in the variant run and the primary's more often in the
// primary run, shifted in time, and carries no more than which came
// when: a bit. (Whole records, not fields: a request of many fields, each
// value on both sides, could carry anything in their combination.) While a run has at
// most maxShifted such emissions they are dropped; past that, they all
// stay (a secret's bits spelled by choosing between two names, one
// lookup a bit, shifts every lookup).
const maxShifted = 2

// signature is a record's content: its fields, names and values.
func signature(r Record) string {
	var b strings.Builder
	for _, f := range r.Fields {
		b.WriteString(f.Name)
		b.WriteByte(0)
		b.WriteString(f.Value)
		b.WriteByte(0)
	}
	return b.String()
}

// signatures are the records' signatures.
func signatures(rs []Record) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = signature(r)
	}
	return out
}

// twins counts the records of each content.
func twins(sigs []string) map[string]int {
	out := map[string]int{}
	for _, s := range sigs {
		out[s]++
	}
	return out
}

// dropShifted leaves out the emissions that only shifted in time, while
// the run has at most maxShifted of them.
//
// Shifts of two contents whose counts the runs with the same secrets
// already made apart by at least as many records are that noise, whatever
// their number: @pinecone-database/mcp polls an index it creates, and the
// runs made its two user agents' requests 1717 and 804 times, 77 and 216,
// 1690 and 835, so the calls' windows held different shares of each. A
// secret's bits spelled by choosing between names leave those names'
// counts the same in the runs with the same secrets: no noise to hide in.
func dropShifted(out []Derived) []Derived {
	pairs := map[string]int{}
	for _, d := range out {
		if d.shifted {
			pairs[d.shiftPair]++
		}
	}
	noise := func(d Derived) bool { return d.shifted && pairs[d.shiftPair] <= d.shiftNoise }
	out = slices.DeleteFunc(out, noise)
	n := 0
	for _, d := range out {
		if d.shifted {
			n++
		}
	}
	if n == 0 || n > maxShifted {
		return out
	}
	return slices.DeleteFunc(out, func(d Derived) bool { return d.shifted })
}
