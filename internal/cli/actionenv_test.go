package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// These tests run the Action end to end through Run; the Action's own
// unit tests, with a fake check, are in internal/action.

// actionEnv is a fake GitHub Actions environment around a workspace.
type actionEnv struct {
	t       *testing.T
	vars    map[string]string
	ws      string
	outputs string
	summary string
}

func newActionEnv(t *testing.T, ws, event string, api *testenv.GitHub, inputs map[string]string) *actionEnv {
	t.Helper()
	dir := t.TempDir()
	e := &actionEnv{t: t, ws: ws, outputs: filepath.Join(dir, "output"), summary: filepath.Join(dir, "summary")}
	payload, err := os.ReadFile(filepath.Join("..", "action", "testdata", "events", event+".json"))
	if err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSpace(gitOut(t, ws, "rev-list", "--max-parents=0", "HEAD"))
	payload = bytes.ReplaceAll(payload, []byte("BASE_SHA"), []byte(base))
	eventPath := filepath.Join(dir, "event.json")
	os.WriteFile(eventPath, payload, 0o644)
	os.WriteFile(e.outputs, nil, 0o644)
	os.WriteFile(e.summary, nil, 0o644)
	e.vars = map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": eventPath,
		"GITHUB_WORKSPACE": ws, "GITHUB_REPOSITORY": "acme/tools", "GITHUB_OUTPUT": e.outputs,
		"GITHUB_STEP_SUMMARY": e.summary, "RUNNER_TEMP": dir, "GITHUB_REF_NAME": "main",
		"INPUT_GITHUB-TOKEN": token, "INPUT_COMMENT": "true", "INPUT_CONFIG": "mcp-audit.yml",
	}
	if api != nil {
		e.vars["GITHUB_API_URL"] = strings.TrimSuffix(api.URL, "/")
	}
	for k, v := range inputs {
		e.vars["INPUT_"+strings.ToUpper(k)] = v
	}
	return e
}

func (e *actionEnv) run() (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	getenv := func(k string) string {
		if v, ok := e.vars[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
	code = Run(ctx, []string{"action"}, nil, &out, &errb, getenv)
	return code, out.String(), errb.String()
}

func (e *actionEnv) output(name string) string {
	data, _ := os.ReadFile(e.outputs)
	// name<<DELIMITER\nvalue\nDELIMITER
	s := string(data)
	i := strings.Index(s, name+"<<")
	if i < 0 {
		return ""
	}
	rest := s[i+len(name)+2:]
	delim, body, _ := strings.Cut(rest, "\n")
	val, _, _ := strings.Cut(body, "\n"+delim)
	return val
}

func keysOf[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func gitOut(t *testing.T, dir string, args ...string) string { return testenv.GitOut(t, dir, args...) }

func repo(t *testing.T, base, change map[string]string) string { return testenv.Repo(t, base, change) }
