package canary

import (
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
)

// A server that finds every provider's credential in its environment at
// once can tell an audit from a user: nobody has nine providers' keys in
// one MCP server's environment. So each run plants the variables the
// server declares (it is configured with them, as a user would), and of
// the other provider variables only a few, as a user with a handful of
// keys in the shell the client inherits would have.

// envUnits are the undeclared provider variables, grouped as users have
// them: an AWS key id comes with its secret.
var envUnits = [][]string{
	{"ANTHROPIC_API_KEY"}, {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}, {"GITHUB_TOKEN"}, {"GH_TOKEN"},
	{"NPM_TOKEN"}, {"OPENAI_API_KEY"}, {"SLACK_BOT_TOKEN"}, {"STRIPE_SECRET_KEY"},
}

// SubsetUnits is how many of envUnits one run plants: four (four or five
// variables) is a developer's usual handful of keys, fewer than a stealer
// that counts them would take for an audit, and half of the units, so
// the traced run and the witness run together plant every one.
const SubsetUnits = 4

// Choice says which canary variables one run plants.
type Choice struct {
	// Declared are the variables the server is configured with
	// (--canary-env, canary_env, server.json): always planted.
	Declared []string
	// Seed names the server's version (pkg@version): one version gets the
	// same subset every time, so identical behavior gives identical
	// manifests.
	Seed string
	// Run is the run's number under --runs; Witness marks the witness run.
	// Each gets its own subset, so together they cover more.
	Run     int
	Witness bool
	// All plants every provider variable (test harnesses of servers that
	// steal a particular one).
	All bool
}

// Env returns the sorted, distinct variables the run plants.
func (c Choice) Env() []string {
	out := slices.Clone(c.Declared)
	if c.All {
		out = append(out, DefaultEnv...)
	} else {
		for _, u := range c.units() {
			out = append(out, u...)
		}
	}
	out = slices.DeleteFunc(out, func(s string) bool { return s == "" })
	slices.Sort(out)
	return slices.Compact(out)
}

// units picks SubsetUnits consecutive units of a permutation fixed by the
// seed. The window moves by SubsetUnits between a run and its witness
// (complementary halves) and by one more from run to run, so every run of
// --runs N differs from the one before.
func (c Choice) units() [][]string {
	h := fnv.New64a()
	h.Write([]byte(c.Seed))
	perm := rand.New(rand.NewPCG(h.Sum64(), 0x63616e617279)).Perm(len(envUnits))
	w := 2 * c.Run
	if c.Witness {
		w++
	}
	start := w*SubsetUnits + w/2
	out := make([][]string, 0, SubsetUnits)
	for i := range SubsetUnits {
		out = append(out, envUnits[perm[(start+i)%len(perm)]])
	}
	return out
}

// GenerateEnv creates a fresh set with exactly the variables env and the
// decoy files.
func GenerateEnv(env []string) *Set {
	s := &Set{Env: map[string]string{}}
	s.addEnv(env, nil)
	s.addDecoys()
	s.sort()
	return s
}

// Regenerate is a fresh set of the same shapes as s, for the run with
// other secrets: fresh decoy files and fresh values for the variables
// env, except those of keep, which keep s's values (the credentials the
// server is given: a request signed with one does not vary with the
// planted values).
func (s *Set) Regenerate(env, keep []string) *Set {
	kept := map[string]string{}
	for _, n := range keep {
		if v := s.Env[n]; v != "" {
			kept[n] = v
		}
	}
	out := &Set{Env: map[string]string{}}
	out.addEnv(env, kept)
	out.addDecoys()
	out.sort()
	return out
}

// WithEnv returns a set with the same decoy files as s and the variables
// env: values s already has are kept, the others are fresh.
func (s *Set) WithEnv(env []string) *Set {
	out := &Set{Env: map[string]string{}, Files: s.Files}
	for _, c := range s.all {
		if strings.HasPrefix(c.Name, "file:") || strings.HasPrefix(c.Name, ContentPrefix) {
			out.all = append(out.all, c)
		}
	}
	out.addEnv(env, s.Env)
	out.sort()
	return out
}

func (s *Set) addEnv(names []string, keep map[string]string) {
	for _, n := range names {
		if n == "" || s.Env[n] != "" {
			continue
		}
		v := keep[n]
		if v == "" {
			v = valueFor(n)
		}
		s.Env[n] = v
		s.all = append(s.all, Canary{Name: "env:" + n, Values: []string{v}})
	}
}

// SwapEnv replaces the variables of old in env by those of cur, in
// their place: the client's environment before, --env after.
func SwapEnv(env []string, old, cur *Set) []string {
	at := -1
	out := make([]string, 0, len(env))
	for _, e := range env {
		if slices.Contains(old.EnvList(), e) {
			if at < 0 {
				at = len(out)
			}
			continue
		}
		out = append(out, e)
	}
	if at < 0 {
		at = len(out)
	}
	return slices.Insert(out, at, cur.EnvList()...)
}
