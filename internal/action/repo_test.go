package action

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// The helpers of these tests: a git workspace with a base and a head
// commit, and a fake GitHub Actions runner around it.

func mustLoad(t *testing.T, path string) *config.Config {
	t.Helper()
	c, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fakeRunner is a GitHub Actions runner: the environment variables of
// an event in ws, and the files the Action writes its outputs to.
type fakeRunner struct {
	vars    map[string]string
	outputs string
	summary string
	stdout  bytes.Buffer
}

func newRunner(t *testing.T, ws, event, apiURL string, inputs map[string]string) *fakeRunner {
	t.Helper()
	dir := t.TempDir()
	payload, err := os.ReadFile(filepath.Join("testdata", "events", event+".json"))
	if err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSpace(gitOut(t, ws, "rev-list", "--max-parents=0", "HEAD"))
	payload = bytes.ReplaceAll(payload, []byte("BASE_SHA"), []byte(base))
	r := &fakeRunner{outputs: filepath.Join(dir, "output"), summary: filepath.Join(dir, "summary")}
	eventPath := filepath.Join(dir, "event.json")
	os.WriteFile(eventPath, payload, 0o644)
	os.WriteFile(r.outputs, nil, 0o644)
	os.WriteFile(r.summary, nil, 0o644)
	r.vars = map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": eventPath,
		"GITHUB_WORKSPACE": ws, "GITHUB_REPOSITORY": "acme/tools", "GITHUB_OUTPUT": r.outputs,
		"GITHUB_STEP_SUMMARY": r.summary, "RUNNER_TEMP": dir, "GITHUB_REF_NAME": "main",
		"GITHUB_API_URL":     strings.TrimSuffix(apiURL, "/"),
		"INPUT_GITHUB-TOKEN": token, "INPUT_COMMENT": "true", "INPUT_CONFIG": "mcp-audit.yml",
	}
	for k, v := range inputs {
		r.vars["INPUT_"+strings.ToUpper(k)] = v
	}
	return r
}

func (r *fakeRunner) getenv(k string) string { return r.vars[k] }

// output reads a step output: name<<DELIMITER\nvalue\nDELIMITER.
func (r *fakeRunner) output(name string) string {
	data, _ := os.ReadFile(r.outputs)
	s := string(data)
	i := strings.Index(s, name+"<<")
	if i < 0 {
		return ""
	}
	delim, body, _ := strings.Cut(s[i+len(name)+2:], "\n")
	val, _, _ := strings.Cut(body, "\n"+delim)
	return val
}

func gitOut(t *testing.T, dir string, args ...string) string { return testenv.GitOut(t, dir, args...) }

func repo(t *testing.T, base, change map[string]string) string { return testenv.Repo(t, base, change) }
