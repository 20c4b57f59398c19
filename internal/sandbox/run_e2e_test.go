package sandbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// TestRunTracesAndWitnesses runs a small node program in the real sandbox
// and checks the guarantees the audit relies on: the server runs as the
// unprivileged user with no capabilities, its file access is traced,
// canary reads are also witnessed by access time, io_uring is refused,
// stdout reaches us, and the container is gone afterwards.
func TestRunTracesAndWitnesses(t *testing.T) {
	img := testenv.Image(t)
	sb := &sandbox.Sandbox{Engine: testenv.Engine(t)}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	prog := `
const fs = require('fs');
fs.readFileSync(process.env.HOME + '/.aws/credentials');
const st = fs.readFileSync('/proc/self/status', 'utf8');
console.log(JSON.stringify({uid: process.getuid(), caps: st.match(/CapEff:\s*(\w+)/)[1], cwd: process.cwd()}));
`
	run, err := sb.Start(ctx, sandbox.Spec{
		Image: img, User: "dev", UID: 1000, Home: "/home/dev", Workdir: "/home/dev/workspace",
		Cmd:         []string{"node", "-e", prog},
		Env:         []string{"HOME=/home/dev", "PATH=/usr/local/bin:/usr/bin:/bin"},
		HomeFiles:   []sandbox.TarFile{{Path: ".aws/credentials", Content: []byte("[default]\n"), Mode: 0o600}, {Path: "workspace", Dir: true, Mode: 0o755}, {Path: ".ssh/id_rsa", Content: []byte("k"), Mode: 0o600}},
		CanaryFiles: []string{"/home/dev/.aws/credentials", "/home/dev/.ssh/id_rsa"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Remove()
	out, _ := io.ReadAll(run.Stdout)
	<-run.Done()
	if !strings.Contains(string(out), `"uid":1000,"caps":"0000000000000000","cwd":"/home/dev/workspace"`) {
		t.Errorf("stdout %q (stderr %q)", out, run.Stderr())
	}
	art, err := run.Collect(ctx, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(art.TraceFile)
	trace, _ := os.ReadFile(art.TraceFile)
	if !strings.Contains(string(trace), `"/home/dev/.aws/credentials", O_RDONLY|O_CLOEXEC) = `) {
		t.Errorf("trace lacks the credentials read:\n%s", trace)
	}
	if art.Status.Exit == nil || art.Status.Exit.Code != 0 || len(art.Status.Problems) > 0 {
		t.Errorf("status %+v", art.Status)
	}
	var readAWS, readSSH bool
	for _, w := range art.Witness {
		if w.Read() {
			readAWS = readAWS || strings.HasSuffix(w.Path, ".aws/credentials")
			readSSH = readSSH || strings.HasSuffix(w.Path, "id_rsa")
		}
	}
	if !readAWS || readSSH {
		t.Errorf("witness: aws read=%v ssh read=%v from %q", readAWS, readSSH, art.Witness)
	}
	run.Remove()
	for _, id := range testenv.Leftovers(t) {
		if id == run.ID {
			t.Errorf("container %s left behind", id)
		}
	}
}

func TestIOURingRefused(t *testing.T) {
	img := testenv.Image(t)
	sb := &sandbox.Sandbox{Engine: testenv.Engine(t)}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run, err := sb.Start(ctx, sandbox.Spec{
		Image: img, User: "dev", UID: 1000, Home: "/home/dev", Workdir: "/home/dev",
		Cmd: []string{"node", "-e", `require('fs').readFile('/etc/hostname', () => {})`},
		Env: []string{"HOME=/home/dev", "PATH=/usr/local/bin:/usr/bin:/bin", "UV_USE_IO_URING=1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Remove()
	io.Copy(io.Discard, run.Stdout)
	<-run.Done()
	art, err := run.Collect(ctx, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(art.TraceFile)
	trace, _ := os.ReadFile(art.TraceFile)
	if !strings.Contains(string(trace), "io_uring_setup(") || !strings.Contains(string(trace), "ENOSYS") {
		t.Errorf("io_uring was not attempted and refused:\n%s", trace)
	}
	if !strings.Contains(string(trace), `"/etc/hostname"`) {
		t.Errorf("the read fell back to a traced openat? trace:\n%s", trace)
	}
}

// TestClockShift: with the clock shim, the server's clock (and a child's)
// starts ClockShift seconds ahead of real time and runs at real speed
// until the idle phase; the monotonic clock's waits stay real.
func TestClockShift(t *testing.T) {
	img := testenv.Image(t)
	sb := &sandbox.Sandbox{Engine: testenv.Engine(t)}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const shift = 3*86400 + 7*3600 + 11*60 + 13
	prog := `
const { execFileSync } = require('child_process');
const t0 = Date.now();
setTimeout(() => {
  const child = Number(execFileSync('date', ['+%s']).toString());
  console.log(JSON.stringify({ now: t0, waited: Date.now() - t0, child }));
}, 1500);
`
	before := time.Now()
	run, err := sb.Start(ctx, sandbox.Spec{
		Image: img, User: "dev", UID: 1000, Home: "/home/dev", Workdir: "/home/dev",
		Cmd: []string{"node", "-e", prog}, ClockRate: 200, ClockShift: shift,
		Env: []string{"HOME=/home/dev", "PATH=/usr/local/bin:/usr/bin:/bin"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Remove()
	out, _ := io.ReadAll(run.Stdout)
	<-run.Done()
	after := time.Now()
	var got struct{ Now, Waited, Child int64 }
	if err := json.Unmarshal(bytes.TrimSpace(out), &got); err != nil {
		t.Fatalf("stdout %q (stderr %q): %v", out, run.Stderr(), err)
	}
	now := time.UnixMilli(got.Now)
	if now.Before(before.Add(shift*time.Second-time.Second)) || now.After(after.Add(shift*time.Second+time.Second)) {
		t.Errorf("the server's clock read %v, want %v ahead of %v..%v", now, time.Duration(shift)*time.Second, before, after)
	}
	if d := got.Child - got.Now/1000; d < -1 || d > 5 {
		t.Errorf("the child's clock is %d s from the server's", d)
	}
	if got.Waited < 1400 || got.Waited > 10000 {
		t.Errorf("a 1.5 s wait took %d ms of the server's time", got.Waited)
	}
}
