package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"go.yaml.in/yaml/v3"

	"github.com/mcp-audit/mcp-audit/internal/cli"
	"github.com/mcp-audit/mcp-audit/schemas"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"mcp-audit": func() {
			os.Exit(cli.Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
		},
		// The same, allowed to reach a remote fixture on loopback (the
		// test-only cli.Env.TestRemoteLoopback).
		"mcp-audit-loopback": func() {
			os.Exit(cli.RunEnv(context.Background(), os.Args[1:], &cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
				Getenv: os.Getenv, TestRemoteLoopback: true}))
		},
	})
}

// TestScripts runs testdata/script/*.txtar against the real CLI: usage,
// help, formats and everything else that needs no engine (the unit tier).
// The scripts that audit through the sandbox are in testdata/script-e2e
// (script_e2e_test.go).
func TestScripts(t *testing.T) {
	runScripts(t, "testdata/script")
}

// runScripts runs the scripts of dir with the harness's environment.
func runScripts(t *testing.T, dir string) {
	fixture, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "fixtures", "fixture-server"))
	cache := os.Getenv("MCP_AUDIT_TEST_CACHE")
	if cache == "" {
		cache = t.TempDir()
	}
	testscript.Run(t, testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			env.Setenv("FIXTURE", fixture)
			env.Setenv("INCOMPLETE", filepath.Join(filepath.Dir(fixture), "incomplete-server"))
			env.Setenv("XDG_CACHE_HOME", cache)
			for _, k := range []string{"MCP_AUDIT_SINK_BINARY", "MCP_AUDIT_ANSWER_RESERVED", "MCP_AUDIT_ALL_CANARIES", "DOCKER_HOST", "NPM_CONFIG_REGISTRY", "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "PATH"} {
				if v := os.Getenv(k); v != "" {
					env.Setenv(k, v)
				}
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"remote-fixture": remoteFixture,
			"remote-got":     remoteGot,
			// schema NAME FILE: FILE (JSON, or YAML for the configuration)
			// is valid under schemas/NAME.
			"schema": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: schema NAME FILE")
				}
				data := []byte(ts.ReadFile(args[1]))
				if strings.HasSuffix(args[1], ".yml") {
					var v any
					ts.Check(yaml.Unmarshal(data, &v))
					var err error
					data, err = json.Marshal(v)
					ts.Check(err)
				}
				err := schemas.Validate(args[0], data)
				switch {
				case neg && err == nil:
					ts.Fatalf("%s is valid under %s", args[1], args[0])
				case !neg && err != nil:
					ts.Fatalf("%s: %v", args[1], err)
				}
			},
			// exits N cmd args...: run cmd and require exit status N.
			"exits": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) < 2 {
					ts.Fatalf("usage: exits N command [args...]")
				}
				want, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("bad exit status %q", args[0])
				}
				err = ts.Exec(args[1], args[2:]...)
				got := 0
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					got = ee.ExitCode()
				} else if err != nil {
					ts.Fatalf("running %s: %v", args[1], err)
				}
				if got != want {
					ts.Fatalf("%s exited %d, want %d", args[1], got, want)
				}
			},
		},
	})
}
