package variant

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/differ"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// RandomSeedFlag seeds node's Math.random in the traced runs.
const RandomSeedFlag = "--random-seed="

// Traced is what the traced runs (primary, calibration, secrets) share
// beyond the defaults: the canonical machine id, Math.random seeded
// (fixed per package version: the runs that share their secrets differ
// in as little as possible), the clock started days ahead (the primary's
// shift: the calibration run takes the other, CalibrationClock) and moved
// years ahead in idle.
func (s Secret) Traced(spec *sandbox.Spec, seed string) {
	spec.MachineID = Canonical.MachineID
	spec.ClockAhead = s.YearsAhead(seed)
	spec.ClockShift, _ = s.ClockShifts(seed)
	if len(spec.Cmd) > 0 && path.Base(spec.Cmd[0]) == "node" {
		spec.Cmd = slices.Insert(slices.Clone(spec.Cmd), 1, RandomSeedFlag+strconv.Itoa(s.RandomSeed(seed)))
	}
}

// CalibrationClock gives the calibration run's spec its own clock shift.
func (s Secret) CalibrationClock(spec *sandbox.Spec, seed string) {
	_, spec.ClockShift = s.ClockShifts(seed)
}

// WitnessSpec gives a spec of the canonical identity the witness run's
// other one: user, home, host name, machine id, the sinkhole's answer
// range, the client and its environment (another than primary)
// and two earlier launches over its home and /tmp. It returns the client
// and the identity.
func (s Secret) WitnessSpec(spec *sandbox.Spec, seed string, primary Client) (Client, Identity) {
	id := s.Witness(seed)
	spec.Hostname, spec.MachineID = id.Hostname, id.MachineID
	spec.Net.AnswerNet = s.WitnessAnswerNet(seed)
	spec.Prelaunches = 2
	Relocate(spec, Canonical, id)
	c := s.WitnessClient(seed, primary)
	spec.Env = ProfileNamed(c.Profile).Swap(spec.Env, id.Home)
	return c, id
}

// Relocate moves a spec from one user and home to another's: the user,
// the home, the working directory, the scanned workspace, the package's
// writable copy, the decoys' paths, and every path under the home in the
// command and environment
// (the user's name in USER and LOGNAME). An image's own user (an OCI
// image's) is not moved.
func Relocate(spec *sandbox.Spec, from, to Identity) {
	if spec.User != from.User || spec.Home != from.Home {
		return
	}
	spec.User, spec.Home = to.User, to.Home
	mv := func(p string) string { return MovePath(p, from.Home, to.Home) }
	spec.Workdir, spec.ScanDir = mv(spec.Workdir), mv(spec.ScanDir)
	spec.Cmd = slices.Clone(spec.Cmd)
	for i, a := range spec.Cmd {
		spec.Cmd[i] = mv(a)
	}
	if spec.Writable != nil {
		w := *spec.Writable // the package's copy where npx puts it, in the home
		w.Dst = mv(w.Dst)
		spec.Writable = &w
	}
	spec.CanaryFiles = slices.Clone(spec.CanaryFiles)
	for i, p := range spec.CanaryFiles {
		spec.CanaryFiles[i] = mv(p)
	}
	spec.Env = slices.Clone(spec.Env)
	for i, e := range spec.Env {
		k, v, _ := strings.Cut(e, "=")
		if (k == "USER" || k == "LOGNAME") && v == from.User {
			v = to.User
		}
		spec.Env[i] = k + "=" + mv(v)
	}
}

// MovePath replaces the directory from, wherever it starts a path in s
// (itself, or followed by a separator: /, a quote, :, a space), by to.
func MovePath(s, from, to string) string {
	if from == "" || from == to || !strings.Contains(s, from) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, from)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		rest := s[i+len(from):]
		if rest == "" || strings.ContainsAny(rest[:1], "/\"':; \t\n,") {
			b.WriteString(s[:i] + to)
		} else {
			b.WriteString(s[:i+len(from)])
		}
		s = rest
	}
}

// Describe is a run's factors for run.variants, values normalized (names
// and ranges, never a secret).
func Describe(spec sandbox.Spec, name, secrets, client, clientEnv string) m.Variant {
	return m.Variant{Name: name, Tracer: !spec.NoTrace, Secrets: secrets, User: spec.User, Hostname: cmp.Or(spec.Hostname, sandbox.Hostname),
		MachineID: spec.MachineID, AnswerNet: cmp.Or(spec.Net.AnswerNet, sinklog.FakeNet), Client: client, ClientEnv: clientEnv,
		Launches: 1 + spec.Prelaunches, ClockRate: spec.ClockRate, ClockAheadYears: spec.ClockAhead, ClockShiftDays: shiftDays(spec),
		RandomSeed: slices.ContainsFunc(spec.Cmd, func(a string) bool { return strings.HasPrefix(a, RandomSeedFlag) })}
}

// Factors are a variant's factors for the comparison of runs.
func Factors(v m.Variant) []differ.Factor {
	return []differ.Factor{{Name: "tracer", Value: strconv.FormatBool(v.Tracer)}, {Name: "clock", Value: fmt.Sprintf("x%d +%dy", v.ClockRate, v.ClockAheadYears)},
		{Name: "user", Value: v.User}, {Name: "host name", Value: v.Hostname}, {Name: "machine id", Value: v.MachineID},
		{Name: "answer range", Value: v.AnswerNet}, {Name: "client", Value: v.Client + " " + v.ClientEnv}, {Name: "launches", Value: strconv.Itoa(v.Launches)}}
}

// MoveParams are a request's parameters with the paths under the home
// from moved to the home to (the witness run's is another user's): the
// same call, in the other run's file system.
func MoveParams(params any, from, to string) any {
	if from == to {
		return params
	}
	b, err := json.Marshal(params)
	if err != nil {
		return params
	}
	return json.RawMessage(MovePath(string(b), from, to))
}

// AddedArgs are the arguments the audit added to a run's command
// (RandomSeedFlag): not the server's behavior.
func AddedArgs(cmd []string) []string {
	var out []string
	for _, a := range cmd {
		if strings.HasPrefix(a, RandomSeedFlag) {
			out = append(out, a)
		}
	}
	return out
}

// shiftDays is a run's clock shift in whole days, normalized for the
// manifest (the seconds come from the installation secret); 0 without the
// clock shim.
func shiftDays(spec sandbox.Spec) int {
	if spec.ClockRate <= 1 {
		return 0
	}
	return spec.ClockShift / 86400
}
