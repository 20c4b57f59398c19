package cli_test

import (
	"os"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcp-audit/mcp-audit/internal/remote/remotefake"
)

// remoteFixtures are the scripts' remote fixtures, by script (scripts
// run in parallel).
var (
	remoteMu       sync.Mutex
	remoteFixtures = map[*testscript.TestScript]*remotefake.Server{}
)

func fixtureOf(ts *testscript.TestScript) *remotefake.Server {
	remoteMu.Lock()
	defer remoteMu.Unlock()
	return remoteFixtures[ts]
}

// remoteFixture MODE FILE.in...: start a remote fixture (remotefake, in
// this test process, on loopback) and write each FILE from FILE.in, its
// endpoints where FILE.in says @REMOTE_HTTP@ and @REMOTE_SSE@.
func remoteFixture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: remote-fixture benign|inject FILE.in...")
	}
	if old := fixtureOf(ts); old != nil {
		old.Close()
	}
	srv := remotefake.Start(args[0])
	remoteMu.Lock()
	remoteFixtures[ts] = srv
	remoteMu.Unlock()
	ts.Defer(func() {
		srv.Close()
		remoteMu.Lock()
		delete(remoteFixtures, ts)
		remoteMu.Unlock()
	})
	for _, f := range args[1:] {
		body := strings.NewReplacer("@REMOTE_HTTP@", srv.HTTPURL(), "@REMOTE_SSE@", srv.SSEURL()).Replace(ts.ReadFile(f))
		ts.Check(os.WriteFile(ts.MkAbs(strings.TrimSuffix(f, ".in")), []byte(body), 0o644))
	}
}

// remoteGot TEXT: the script's remote fixture received TEXT (in a path,
// query, header or body); with !, it did not.
func remoteGot(ts *testscript.TestScript, neg bool, args []string) {
	srv := fixtureOf(ts)
	if srv == nil || len(args) != 1 {
		ts.Fatalf("usage: remote-got TEXT, after remote-fixture")
	}
	got := srv.Received(args[0])
	switch {
	case got && neg:
		ts.Fatalf("the remote fixture received %q", args[0])
	case !got && !neg:
		ts.Fatalf("the remote fixture did not receive %q; it got %v", args[0], srv.Methods())
	}
}
