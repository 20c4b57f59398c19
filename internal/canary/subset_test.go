package canary

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func undeclared(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(n string) bool { return !slices.Contains(DefaultEnv, n) })
}

func TestChoiceIsDeterministicAndSmall(t *testing.T) {
	for i := range 50 {
		c := Choice{Seed: fmt.Sprintf("server-%d@1.0.0", i)}
		env := c.Env()
		if !slices.Equal(env, c.Env()) {
			t.Fatalf("%s: not deterministic", c.Seed)
		}
		if n := len(undeclared(env)); n < SubsetUnits || n > SubsetUnits+1 {
			t.Errorf("%s: %d provider variables planted (%v), want %d or %d", c.Seed, n, env, SubsetUnits, SubsetUnits+1)
		}
		if slices.Contains(env, "AWS_ACCESS_KEY_ID") != slices.Contains(env, "AWS_SECRET_ACCESS_KEY") {
			t.Errorf("%s: AWS key id without its secret: %v", c.Seed, env)
		}
	}
}

func TestChoiceDeclaredAlwaysPlanted(t *testing.T) {
	decl := []string{"OPENAI_API_KEY", "DATABASE_URL", "BRAVE_API_KEY"}
	for run := range 4 {
		for _, w := range []bool{false, true} {
			env := Choice{Declared: decl, Seed: "x@1", Run: run, Witness: w}.Env()
			for _, d := range decl {
				if !slices.Contains(env, d) {
					t.Errorf("run %d witness %v: declared %s missing from %v", run, w, d, env)
				}
			}
			if !slices.IsSorted(env) || len(slices.Compact(slices.Clone(env))) != len(env) {
				t.Errorf("not sorted and distinct: %v", env)
			}
		}
	}
}

func TestChoiceRotates(t *testing.T) {
	seeds := map[string]bool{}
	for i := range 20 {
		seed := fmt.Sprintf("pkg-%d@2.%d.0", i, i)
		traced, witness := Choice{Seed: seed}.Env(), Choice{Seed: seed, Witness: true}.Env()
		// The traced run and its witness together plant every variable.
		union := append(slices.Clone(traced), witness...)
		for _, n := range DefaultEnv {
			if !slices.Contains(union, n) {
				t.Errorf("%s: %s planted in neither the traced %v nor the witness run %v", seed, n, traced, witness)
			}
		}
		// Every run of --runs N differs from the one before.
		prev := strings.Join(traced, ",")
		for run := 1; run < 4; run++ {
			cur := strings.Join(Choice{Seed: seed, Run: run}.Env(), ",")
			if cur == prev {
				t.Errorf("%s: run %d plants what run %d did: %s", seed, run, run-1, cur)
			}
			prev = cur
		}
		seeds[strings.Join(traced, ",")] = true
	}
	if len(seeds) < 5 {
		t.Errorf("20 servers got only %d different subsets", len(seeds))
	}
}

func TestChoiceAll(t *testing.T) {
	env := Choice{Declared: []string{"BRAVE_API_KEY"}, Seed: "x@1", All: true}.Env()
	if len(env) != len(DefaultEnv)+1 {
		t.Errorf("All planted %v", env)
	}
}

func TestWithEnvKeepsFilesAndValues(t *testing.T) {
	s := GenerateEnv([]string{"OPENAI_API_KEY", "GITHUB_TOKEN"})
	w := s.WithEnv([]string{"OPENAI_API_KEY", "NPM_TOKEN"})
	if w.Env["OPENAI_API_KEY"] != s.Env["OPENAI_API_KEY"] || w.Env["NPM_TOKEN"] == "" || w.Env["GITHUB_TOKEN"] != "" {
		t.Errorf("env not carried over: %v", w.EnvList())
	}
	if len(w.Files) != len(s.Files) || w.FileCanary("~/.aws/credentials") == "" {
		t.Errorf("decoy files not carried over")
	}
	var names []string
	for _, c := range w.All() {
		names = append(names, c.Name)
	}
	if !slices.IsSorted(names) || !slices.Contains(names, "env:NPM_TOKEN") || slices.Contains(names, "env:GITHUB_TOKEN") ||
		!slices.Contains(names, "file:~/.ssh/id_rsa") {
		t.Errorf("canaries %v", names)
	}
}

func TestSwapEnv(t *testing.T) {
	t.Parallel()
	old := GenerateEnv([]string{"A_TOKEN", "B_TOKEN"})
	cur := old.WithEnv([]string{"B_TOKEN", "C_TOKEN"})
	env := append(append([]string{"HOME=/home/dev"}, old.EnvList()...), "X=1")
	got := SwapEnv(env, old, cur)
	want := append(append([]string{"HOME=/home/dev"}, cur.EnvList()...), "X=1")
	if !slices.Equal(got, want) {
		t.Errorf("swap = %v, want %v", got, want)
	}
}
