package variant

import (
	"slices"
	"strings"
	"testing"
)

func TestProfiles(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for run := range len(Profiles) {
		p := PickProfile("some-server@1.0.0", run)
		if again := PickProfile("some-server@1.0.0", run); again.Name != p.Name {
			t.Errorf("run %d: %s then %s: one version must get one profile per run", run, p.Name, again.Name)
		}
		seen[p.Name] = true
		env := p.Env(Canonical, Canonical.Home+"/workspace")
		keys := map[string]int{}
		for _, kv := range env {
			k, _, _ := strings.Cut(kv, "=")
			keys[k]++
		}
		for _, k := range []string{"HOME", "USER", "LOGNAME", "PATH", "SHELL"} {
			if keys[k] != 1 {
				t.Errorf("profile %s: %s set %d times", p.Name, k, keys[k])
			}
		}
		if (keys["TERM"] == 1) != (p.Name == "terminal") {
			t.Errorf("profile %s: TERM %d", p.Name, keys["TERM"])
		}
		if slices.ContainsFunc(env, func(kv string) bool { return strings.Contains(strings.ToLower(kv), "audit") }) {
			t.Errorf("profile %s names the auditor: %v", p.Name, env)
		}
		other := ProfileNamed("editor").Swap(env, "/home/sam")
		if !slices.Contains(other, "LANG=en_US.UTF-8") || slices.Contains(other, "TERM=xterm-256color") {
			t.Errorf("swapped to editor: %v", other)
		}
	}
	if len(seen) != len(Profiles) {
		t.Errorf("profiles seen %v", seen)
	}
}
