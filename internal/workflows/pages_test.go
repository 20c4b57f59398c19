package workflows

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestPagesTokenOnlyWhereDeployed: a job that may write to GitHub Pages or
// mint an OIDC token runs nothing but GitHub's own deploy, attest and
// artifact-download actions (tokenOnlyAction), so neither
// permission is held while our code, a server or a build runs; no workflow
// grants them at the top level.
func TestPagesTokenOnlyWhereDeployed(t *testing.T) {
	files, _ := Files(root)
	deploys := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			Permissions any `yaml:"permissions"`
			Jobs        map[string]struct {
				Permissions map[string]string `yaml:"permissions"`
				Steps       []struct {
					Uses string `yaml:"uses"`
					Run  string `yaml:"run"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(data, &wf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if top, ok := wf.Permissions.(map[string]any); ok && (top["pages"] != nil || top["id-token"] != nil) {
			t.Errorf("%s: pages or id-token granted to every job", filepath.Base(f))
		}
		for name, job := range wf.Jobs {
			if job.Permissions["pages"] != "write" && job.Permissions["id-token"] != "write" {
				continue
			}
			deploys++
			for _, s := range job.Steps {
				if s.Run != "" || !tokenOnlyAction(s.Uses) {
					t.Errorf("%s: job %s holds pages or id-token and runs %q%q", filepath.Base(f), name, s.Uses, s.Run)
				}
			}
		}
	}
	if deploys == 0 {
		t.Error("no workflow deploys to Pages (study.yml should)")
	}
}

// tokenOnlyAction: the actions a job holding pages or id-token may run;
// none of them runs code of ours, of a server or of a build.
func tokenOnlyAction(uses string) bool {
	for _, a := range []string{"actions/deploy-pages@", "actions/attest-build-provenance@", "actions/download-artifact@"} {
		if strings.HasPrefix(uses, a) {
			return true
		}
	}
	return false
}
