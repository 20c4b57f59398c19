package differential

import (
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/argsynth"
	"github.com/mcp-audit/mcp-audit/internal/hosts"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Derive is what the primary run of man emitted that follows the planted
// values, for the manifest: its records compared with the calibration
// run's (the same secrets) and the secrets run's (others), values left
// out. The credentials the server was given keep their values in the
// secrets run, so a request signed with one is no difference; the
// workspace files (under workspace) do not, so what a call that named
// them sends or returns follows them, and is marked the caller's, as is
// what a call after one that set the server's working context to the
// workspace returns or writes there (git_set_working_dir: a git status
// shows commit ids, which follow the files' contents). others
// are the calibration and secrets runs' manifests: a call phase the runs
// did not fill with the same call (the same tool, set and arguments, a
// reference counting as its reference, not its value) is not compared,
// since its records differ by what was asked (a retry one run made
// shifts the numbering of that tool's later calls). When a limit ended any
// run (the audit deadline), an emission only some runs made is left out:
// each run stopped wherever the limit met it.
func Derive(man *m.Manifest, workspace string, primary, calibration, secrets []Record, others ...*m.Manifest) []m.DerivedOutput {
	if len(others) > 0 {
		differ := differentCalls(append([]*m.Manifest{man}, others...))
		primary, calibration, secrets = without(primary, differ), without(calibration, differ), without(secrets, differ)
	}
	named, inContext, args := map[string]bool{}, map[string]bool{}, map[string]string{}
	context := false // a call set the server's working context to the workspace
	for _, c := range man.Calls {
		inWorkspace := strings.Contains(string(c.Args), workspace)
		named[c.Phase], inContext[c.Phase], args[c.Phase] = inWorkspace, context, string(c.Args)
		context = context || c.Kind == "tool" && c.Outcome == m.CallOK && argsynth.SetsContext(c.Name) && namesDir(c.Args, workspace)
	}
	// In the working context, what the call returns, or writes in a
	// repository's store in the workspace, is the caller's; what it sends
	// or writes elsewhere is judged as usual (an encoded credential must
	// not pass for a commit id).
	//
	// What a call that named workspace files sends over the network is
	// the caller's only where the caller named the place (an upload to
	// the host in its arguments): a thief that waits for a call reading a
	// file (or is slow enough to send its startup theft during one) sends
	// the planted credentials where nobody supplied.
	caller := func(d Derived) bool {
		switch {
		case named[d.Phase] && !network(d.Channel):
			return true
		case named[d.Phase] && suppliedDest(d.Channel, d.Dest, args[d.Phase]):
			return true
		case inContext[d.Phase]:
			return d.Channel == ChannelResult || d.Channel == ChannelFile && strings.HasPrefix(d.Dest, "<workspace>/") && strings.Contains(d.Dest, "/.git/")
		}
		return false
	}
	files := readUserFiles(man, named)
	// One entry per destination (per call for results): sixteen DNS
	// questions that each carry a bit are one finding, with their count.
	var out []m.DerivedOutput
	type entry struct {
		key
		caller bool
	}
	at := map[entry]int{}
	cut := slices.ContainsFunc(append([]*m.Manifest{man}, others...), func(r *m.Manifest) bool { return r.Outcome.Status == m.StatusKilled })
	for _, d := range Compare(primary, calibration, secrets) {
		if cut && (d.Presence == PresencePrimary || d.Presence == PresenceVariant) {
			continue // a run a limit ended stopped at no particular point: what only some runs made before it says nothing
		}
		k := entry{key{channel: d.Channel, dest: d.Dest}, caller(d)}
		if d.Channel == ChannelResult {
			k.phase = d.Phase
		}
		if d.Presence == PresenceSwapped {
			k.dest = "" // where it went is the channel's one finding: the places are its evidence
		}
		i, ok := at[k]
		if ok && d.Presence == PresenceSwapped && !strings.Contains(out[i].Dest, "…") {
			if dest := out[i].Dest + ", " + d.Dest; len(dest) <= 200 {
				out[i].Dest = dest
			} else {
				out[i].Dest += ", …"
			}
		}
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, m.DerivedOutput{Phase: d.Phase, Channel: d.Channel, Dest: textsafe.Line(d.Dest, 200), Presence: d.Presence,
				UserFiles: files, Caller: caller(d)})
		}
		o := &out[i]
		o.Count++
		if len(d.Fields) > 0 {
			o.Presence = "" // a field that differs says more than presence
		}
		for _, f := range d.Fields {
			name := fieldLabel(f)
			if len(o.Fields) < maxFieldsDerived && !slices.Contains(o.Fields, name) {
				o.Fields = append(o.Fields, name)
			}
		}
	}
	for i := range out {
		if out[i].Count == 1 {
			out[i].Count = 0
		}
	}
	return out
}

// Redact applies each redaction to the destinations and labels: a label
// names a field by its path, and a path can be a key the server made of a
// secret ({"<secret>": true}); no planted value reaches the manifest.
func Redact(ds []m.DerivedOutput, redact ...func(string) string) {
	for i := range ds {
		for _, r := range redact {
			ds[i].Dest = r(ds[i].Dest)
			for j := range ds[i].Fields {
				ds[i].Fields[j] = r(ds[i].Fields[j])
			}
		}
	}
}

// network: a channel that leaves the machine.
func network(ch string) bool {
	return ch != ChannelResult && ch != ChannelMessage && ch != ChannelFile
}

// suppliedDest: the destination's host is one the call's arguments name —
// the same registrable domain as a host in them (hosts.Extract, which
// leaves out file names), or the same address. A single label (a Host
// header of "home" matches any path) never is.
func suppliedDest(ch, dest, args string) bool {
	words := strings.Fields(dest)
	if ch == ChannelService && len(words) > 1 {
		words = words[1:] // "postgres 10.0.0.9:5432"
	}
	if len(words) == 0 {
		return false
	}
	host := words[0]
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(host)
	if !strings.Contains(host, ".") {
		return false
	}
	reg := hosts.Registrable(host)
	for _, h := range hosts.Extract(args) {
		if h == host || hosts.Registrable(h) == reg {
			return true
		}
	}
	return false
}

// readUserFiles reports whether the run read a file of the workspace (not
// its .env, a canary of its own) where no call named it.
func readUserFiles(man *m.Manifest, named map[string]bool) bool {
	for _, ph := range man.Phases {
		if named[ph.Name] {
			continue
		}
		for _, f := range ph.Files {
			if strings.HasPrefix(f.Path, "<workspace>/") && f.Access == m.AccessRead && f.Result == m.ResultOK && f.Category != m.CatCanary {
				return true
			}
		}
	}
	return false
}

// differentCalls are the call phases the runs did not fill with the same
// call. A restart only one run made is no reason: a server that dies on
// purpose in one run must not take the later calls out of the comparison.
func differentCalls(runs []*m.Manifest) map[string]bool {
	calls := make([]map[string]string, len(runs))
	phases := map[string]bool{}
	for i, r := range runs {
		calls[i] = map[string]string{}
		for _, c := range r.Calls {
			calls[i][c.Phase] = fmt.Sprintf("%s\x00%s\x00%s\x00%s", c.Kind, c.Name, c.Set, c.Args)
			phases[c.Phase] = true
		}
	}
	out := map[string]bool{}
	for ph := range phases {
		for i := 1; i < len(calls); i++ {
			a, okA := calls[0][ph]
			b, okB := calls[i][ph]
			if okA != okB || a != b {
				out[ph] = true
			}
		}
	}
	return out
}

// without is rs less the records of the phases in drop.
func without(rs []Record, drop map[string]bool) []Record {
	if len(drop) == 0 {
		return rs
	}
	var out []Record
	for _, r := range rs {
		if !drop[r.Phase] {
			out = append(out, r)
		}
	}
	return out
}

// namesDir: one of the arguments is the workspace directory itself (the
// working directory a setup call sets), not a file in it.
func namesDir(args []byte, workspace string) bool {
	var v map[string]any
	if json.Unmarshal(args, &v) != nil {
		return false
	}
	for _, x := range v {
		if s, ok := x.(string); ok && strings.TrimSuffix(s, "/") == workspace {
			return true
		}
	}
	return false
}

// Labels of a lookup type's difference between the types a resolver asks
// for by itself.
const (
	QtypeAddress        = "qtype (A or AAAA)"
	QtypeAddressOrHTTPS = "qtype (A, AAAA or HTTPS)"
)

// fieldLabel names a differing field and its size, never its values: the
// longer of the two runs' (a field one run left short may be long in the
// other; "digits" when it is a decimal number in both, and for a
// Content-Length how far apart the two were), or, for a lookup's type
// that is A or AAAA in both runs, that; A, AAAA or HTTPS (the service
// binding a browser asks for beside the addresses), that. LabelSize reads
// it back.
func fieldLabel(f FieldDiff) string {
	aaaa := func(v string) bool { return v == "A" || v == "AAAA" }
	https := func(v string) bool { return aaaa(v) || v == "HTTPS" }
	flag := func(v string) bool { return v == "true" || v == "false" || v == "null" }
	switch {
	case f.Name == "qtype" && aaaa(f.Primary) && aaaa(f.Variant):
		return QtypeAddress
	case f.Name == "qtype" && https(f.Primary) && https(f.Variant):
		return QtypeAddressOrHTTPS
	case !f.renamed && (f.Primary == absent && flag(f.Variant) || f.Variant == absent && flag(f.Primary)):
		return textsafe.Line(f.Name, 120) + flagLabel
	}
	n := len(f.Primary)
	switch {
	case f.Primary == absent:
		n = len(f.Variant)
	case f.Variant != absent:
		n = max(n, len(f.Variant))
	}
	if x, ok := decimal(f.Primary); ok {
		if y, ok := decimal(f.Variant); ok {
			if f.Name == "header.content-length" {
				// How far the lengths are apart: a few bytes is what a
				// number's digits change; more is a body that grew.
				return fmt.Sprintf("%s (%d digits, %d apart)", f.Name, n, min(max(x-y, y-x), 1<<20))
			}
			return fmt.Sprintf("%s (%d digits)", textsafe.Line(f.Name, 120), n) // a number in both runs: a count, a duration
		}
	}
	return fmt.Sprintf("%s (%d characters)", textsafe.Line(f.Name, 120), n)
}

// flagLabel ends the label of a field one run alone had, whose value in
// it was true, false or null: a field a server adds once some state is
// set (desktop-commander adds "saw_onboarding_page": false to its
// telemetry once its feature flags have loaded, which in one run came
// before a call and in another after it). It carries its presence, a bit.
const flagLabel = " (a flag, in one run only)"

// LabelFlag reads a flag's label back: the field's last key ("" for a
// field whose name has none), and whether the label is one.
func LabelFlag(label string) (key string, ok bool) {
	name, ok := strings.CutSuffix(label, flagLabel)
	if !ok {
		return "", false
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return name, true
}

// LabelSize reads a field label fieldLabel made: the field's size, whether
// it was a decimal number in both runs, and for a Content-Length how far
// apart the runs' were (-1 otherwise). ok is false for a label of another
// form (a lookup type's, or one recorded before sizes said digits).
func LabelSize(label string) (n int, digits bool, apart int, ok bool) {
	i := strings.LastIndex(label, " (")
	if i < 0 {
		return 0, false, -1, false
	}
	rest := label[i:]
	if _, err := fmt.Sscanf(rest, " (%d digits, %d apart)", &n, &apart); err == nil && strings.HasSuffix(rest, " apart)") {
		return n, true, apart, true
	}
	for _, unit := range []string{"digits", "characters"} {
		if _, err := fmt.Sscanf(rest, " (%d "+unit+")", &n); err == nil && strings.HasSuffix(rest, " "+unit+")") {
			return n, unit == "digits", -1, true
		}
	}
	return 0, false, -1, false
}
