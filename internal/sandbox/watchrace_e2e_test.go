package sandbox_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// TestWatcherSeesOnlyTheServer: the witness run's file watcher reports
// every program opened in the bin directories while it runs, so the
// entrypoint must run none of its own then. Its watchdog's sleep is forked
// asynchronously: under load its exec came after the watcher had started
// (1 audit in 36 with three side by side), and a clean server got a
// critical anti-analysis finding, "process /usr/bin/sleep only in the
// witness run". Here a sleep first on the entrypoint's PATH, outside the
// watched directories, waits half a second before it executes the real
// one: that late exec must come before the watcher starts.
func TestWatcherSeesOnlyTheServer(t *testing.T) {
	eng := testenv.Engine(t)
	sb := &sandbox.Sandbox{Engine: eng}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	img := slowSleepImage(t, eng)
	run, err := sb.Start(ctx, sandbox.Spec{
		Image: img, User: "dev", UID: 1000, Home: "/home/dev", Workdir: "/home/dev/workspace",
		Cmd:         []string{"node", "-e", "setTimeout(() => {}, 2000)"},
		Env:         []string{"HOME=/home/dev", "PATH=/opt/slow:/usr/local/bin:/usr/bin:/bin"},
		HomeFiles:   []sandbox.TarFile{{Path: "workspace", Dir: true, Mode: 0o755}, {Path: ".ssh/id_rsa", Content: []byte("k"), Mode: 0o600}},
		CanaryFiles: []string{"/home/dev/.ssh/id_rsa"},
		NoTrace:     true, Watch: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Remove()
	io.Copy(io.Discard, run.Stdout)
	<-run.Done()
	art, err := run.Collect(ctx, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var node bool
	for _, ex := range art.Watch.Execs {
		line := strings.Join(ex.Names, " ")
		switch {
		case strings.Contains(line, "/node"):
			node = true
		case !strings.Contains(line, "setpriv"):
			t.Errorf("the watcher saw a program the server did not run: %q", line)
		}
	}
	if !node {
		t.Errorf("the watcher did not see the server's node: %+v", art.Watch)
	}
}

// slowSleepImage is the sandbox image with /opt/slow/sleep, which busies
// itself for about half a second (shell builtins: nothing in a watched
// directory) before it executes the real sleep.
func slowSleepImage(t *testing.T, eng *client.Client) string {
	t.Helper()
	tag := "mcp-audit-test-slowsleep:" + strings.ToLower(t.Name())
	testenv.BuildImage(t, tag, []sandbox.TarFile{
		{Path: "Dockerfile", Mode: 0o644, Content: []byte("FROM " + testenv.Image(t) + "\nCOPY sleep /opt/slow/sleep\n")},
		{Path: "sleep", Mode: 0o755, Content: []byte("#!/bin/sh\ni=0\nwhile [ $i -lt 400000 ]; do i=$((i + 1)); done\nexec /usr/bin/sleep \"$@\"\n")},
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		eng.ImageRemove(ctx, tag, client.ImageRemoveOptions{Force: true, PruneChildren: true})
	})
	return tag
}
