package audit

import (
	"slices"
	"strings"
	"testing"
)

func TestClientEnvProfiles(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for run := range len(clientEnvs) {
		name, env := pickClientEnv("some-server@1.0.0", run)
		if again, _ := pickClientEnv("some-server@1.0.0", run); again != name {
			t.Errorf("run %d: %s then %s: one version must get one profile per run", run, name, again)
		}
		seen[name] = true
		keys := map[string]int{}
		for _, kv := range env {
			k, _, _ := strings.Cut(kv, "=")
			keys[k]++
		}
		for _, k := range []string{"HOME", "USER", "LOGNAME", "PATH", "SHELL"} {
			if keys[k] != 1 {
				t.Errorf("profile %s: %s set %d times", name, k, keys[k])
			}
		}
		if (keys["TERM"] == 1) != (name == "terminal") {
			t.Errorf("profile %s: TERM %d", name, keys["TERM"])
		}
		if slices.ContainsFunc(env, func(kv string) bool { return strings.Contains(strings.ToLower(kv), "audit") }) {
			t.Errorf("profile %s names the auditor: %v", name, env)
		}
	}
	if len(seen) != len(clientEnvs) {
		t.Errorf("profiles seen %v", seen)
	}
}
