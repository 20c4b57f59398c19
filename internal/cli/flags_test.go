package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

func TestSplitCommand(t *testing.T) {
	for in, want := range map[string][]string{
		`node server.js`:              {"node", "server.js"},
		`  node   "a b"  'c d' `:      {"node", "a b", "c d"},
		`node --x="q \"y\"" a\ b`:     {"node", `--x=q "y"`, "a b"},
		`sh -c 'echo "$HOME"'`:        {"sh", "-c", `echo "$HOME"`},
		`''`:                          {""},
		"":                            nil,
		"python3\t-m\nserver":         {"python3", "-m", "server"},
		`node 'it'"'"'s'`:             {"node", "it's"},
		`node "unterminated`:          nil,
		`node 'also unterminated " x`: nil,
	} {
		got, err := splitCommand(in)
		if want == nil && in != "" {
			if !errors.Is(err, verdict.ErrUsage) {
				t.Errorf("splitCommand(%q) = %q, %v; want a usage error", in, got, err)
			}
			continue
		}
		if err != nil || !cmp.Equal(got, want) {
			t.Errorf("splitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestParseToolArgs(t *testing.T) {
	got, err := parseToolArgs([]string{`echo={"text":"hi"}`, `list= {}`})
	if err != nil || string(got["echo"]) != `{"text":"hi"}` || string(got["list"]) != ` {}` {
		t.Errorf("parseToolArgs = %q, %v", got, err)
	}
	for _, bad := range []string{`echo`, `={}`, `echo=[1]`, `echo={`} {
		if _, err := parseToolArgs([]string{bad}); !errors.Is(err, verdict.ErrUsage) {
			t.Errorf("parseToolArgs(%q): %v, want a usage error", bad, err)
		}
	}
}

func TestParseResponses(t *testing.T) {
	got, err := parseResponses([]string{"API.example=404", "*=200"})
	if err != nil || got["api.example"].Status != 404 || got["*"].Body != "{}" {
		t.Errorf("parseResponses = %+v, %v", got, err)
	}
	for _, bad := range []string{"api.example", "=200", "api.example=abc", "api.example=99", "api.example=200:/no/such/file"} {
		if _, err := parseResponses([]string{bad}); !errors.Is(err, verdict.ErrUsage) {
			t.Errorf("parseResponses(%q): %v, want a usage error", bad, err)
		}
	}
}

func TestEvidencePath(t *testing.T) {
	for _, tc := range []struct{ out, explicit, want string }{
		{"", "", ""},
		{"-", "", ""},
		{"m/server.json", "", "m/server.evidence.jsonl"},
		{"m/server.json", "e.jsonl", "e.jsonl"},
		{"", "e.jsonl", "e.jsonl"},
	} {
		if got := evidencePath(tc.out, tc.explicit); got != tc.want {
			t.Errorf("evidencePath(%q, %q) = %q, want %q", tc.out, tc.explicit, got, tc.want)
		}
	}
}

// TestExitCode is the one mapping from errors to exit statuses.
func TestExitCode(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		ctx  context.Context
		err  error
		want int
	}{
		{context.Background(), nil, ExitOK},
		{context.Background(), flag.ErrHelp, ExitOK},
		{context.Background(), verdict.ErrFindings, ExitFindings},
		{context.Background(), verdict.ErrFindings, ExitFindings},
		{context.Background(), fmt.Errorf("%w: bad flag", verdict.ErrUsage), ExitUsage},
		{context.Background(), fmt.Errorf("%w: no server", verdict.ErrUsage), ExitUsage},
		{context.Background(), fmt.Errorf("%w: npm:", target.ErrUsage), ExitUsage},
		{context.Background(), fmt.Errorf("%w: 1 server", audit.ErrRuntime), ExitRuntime},
		{context.Background(), errors.New("anything else"), ExitRuntime},
		{canceled, fmt.Errorf("running: %w", context.Canceled), ExitInterrupted},
	} {
		var stderr bytes.Buffer
		if got := exitCode(tc.err, &stderr, tc.ctx); got != tc.want {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

// TestWithCommonKeepsActionOptions: the Action asks for the witness run
// and, on schedule, a longer dwell; the common flags must not drop them.
func TestWithCommonKeepsActionOptions(t *testing.T) {
	env := &Env{Getenv: func(string) string { return "" }}
	got := withCommon(env, commonFlags{}, audit.Options{Witness: true, Sandbox: audit.SandboxOptions{Network: "open"}, Timing: audit.TimingOptions{Dwell: 30 * time.Second}})
	if !got.Witness || got.Timing.Dwell != 30*time.Second || got.Sandbox.Network != "open" {
		t.Errorf("witness %v, dwell %v, network %q: the caller's options were dropped", got.Witness, got.Timing.Dwell, got.Sandbox.Network)
	}
	if got := withCommon(env, commonFlags{witness: true}, audit.Options{}); !got.Witness {
		t.Error("--witness (default on) was dropped")
	}
}
