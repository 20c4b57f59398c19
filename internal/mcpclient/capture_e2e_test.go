package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Capturing transcripts from the real SDK fixtures (not a test: it runs
// only with -capture). The fixtures are installed first by the project's
// own pipeline (bin/mcp-audit audit ./testdata/fixtures/NAME), which puts
// them in the install cache; each then runs in the sandbox image with no
// network, its installed tree mounted read-only, and this client drives
// it. HTTP fixtures listen on a Unix socket in a directory shared with
// the container. See testdata/transcripts/README.md.
var (
	capture         = flag.Bool("capture", false, "rewrite testdata/transcripts from the real SDK fixtures (needs docker and installed fixtures)")
	captureInstalls = flag.String("capture-installs", filepath.Join(os.Getenv("HOME"), ".cache/mcp-audit/installs"), "the install cache holding the fixtures")
	captureImage    = flag.String("capture-image", "mcp-audit-sandbox:3", "the sandbox image to run the fixtures in")
)

// captureToken is the fake token the fixtures that leak one are given.
const captureToken = "ghp_CAPTUREfixtureTOKEN0000000000000000"

// fixtureTree finds the newest installed tree of fixture name whose
// server.js is the one in testdata/fixtures.
func fixtureTree(t *testing.T, name string) string {
	t.Helper()
	want, err := os.ReadFile(filepath.Join("..", "..", "testdata", "fixtures", name, "server.js"))
	if err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob(filepath.Join(*captureInstalls, "dir-*"))
	best, bestTime := "", time.Time{}
	for _, d := range dirs {
		got, err := os.ReadFile(filepath.Join(d, "node_modules", name, "server.js"))
		st, serr := os.Stat(d)
		if err == nil && serr == nil && bytes.Equal(got, want) && st.ModTime().After(bestTime) {
			best, bestTime = d, st.ModTime()
		}
	}
	if best == "" {
		t.Skipf("%s is not installed: run bin/mcp-audit audit ./testdata/fixtures/%s first", name, name)
	}
	return best
}

// fixtureRun is one fixture running in the sandbox image.
type fixtureRun struct {
	name   string // the container's
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	sock   string // the HTTP socket path on the host (HTTP runs)
	start  time.Time
}

// runFixture starts fixture name with args; with transport "http" or
// "sse", it serves that on a socket in a shared directory instead of stdio.
func runFixture(t *testing.T, rec *recorder, name, transport string, args ...string) *fixtureRun {
	t.Helper()
	tree := fixtureTree(t, name)
	r := &fixtureRun{name: fmt.Sprintf("mcpclient-capture-%d", time.Now().UnixNano())}
	docker := []string{"run", "--rm", "-i", "--name", r.name, "--network", "none", "--memory", "512m", "-v", tree + ":/srv:ro", "-e", "GITHUB_TOKEN=" + captureToken}
	if transport != "" {
		dir := t.TempDir()
		if err := os.Chmod(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		docker = append(docker, "-v", dir+":/sock")
		args = append(args, transport+"=/sock/mcp.sock")
		r.sock = filepath.Join(dir, "mcp.sock")
	}
	docker = append(docker, *captureImage, "node", "/srv/node_modules/"+name+"/server.js")
	r.cmd = exec.Command("docker", append(docker, args...)...)
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	errR, errW, _ := os.Pipe()
	r.cmd.Stdin, r.cmd.Stdout, r.cmd.Stderr = inR, outW, errW
	r.start = time.Now()
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	errW.Close()
	r.stdin, r.stdout = inW, outR
	go func() {
		sc := bufio.NewScanner(errR)
		for sc.Scan() {
			rec.add(record{E: sc.Text()})
		}
	}()
	t.Cleanup(func() {
		r.stdin.Close()
		done := make(chan struct{})
		go func() { _ = r.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			// An HTTP server does not end with its stdin: stop the
			// container itself (the docker client alone would leave it).
			_ = exec.Command("docker", "kill", r.name).Run()
			<-done
		}
	})
	return r
}

// stdioClient is a client on the run's stdio that records both ways.
func (r *fixtureRun) stdioClient(rec *recorder, co Options) *Client {
	co.OnSend = func(b []byte) { rec.add(record{C: bytes.Clone(b)}) }
	co.OnLine = func(b []byte, isJSON bool) {
		if isJSON {
			rec.add(record{S: bytes.Clone(b)})
		} else {
			rec.add(record{E: "stdout: " + string(b)})
		}
	}
	return New(r.stdout, r.stdin, co)
}

// httpClient is a client on the run's socket that records each exchange
// (sse: of the 2024-11-05 transport).
func (r *fixtureRun) httpClient(t *testing.T, rec *recorder, co Options, sse bool) *Client {
	hc := &http.Client{Transport: &recordingTransport{rec: rec, next: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", r.sock)
		},
	}}}
	if sse {
		// The messages both ways, as on stdio; the exchanges are kept too
		// (the stream is recorded whole when it closes).
		co.OnSend = func(b []byte) { rec.add(record{C: bytes.Clone(b)}) }
		co.OnLine = func(b []byte, isJSON bool) { rec.add(record{S: bytes.Clone(b)}) }
		c, tr := NewSSE(SSEOptions{URL: "http://fixture.test/sse", Client: hc, RetryConnect: true, StreamTimeout: time.Minute}, co)
		t.Cleanup(func() { c.Close(); tr.Close() })
		return c
	}
	c, tr := NewHTTP(HTTPOptions{URL: "http://fixture.test/mcp", Client: hc, RetryInitialize: true}, co)
	t.Cleanup(func() { c.Close(); tr.Close() })
	return c
}

func skipUnlessCapture(t *testing.T) {
	t.Helper()
	if !*capture {
		t.Skip("capturing transcripts needs -capture")
	}
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("no docker")
	}
}

// note adds a measurement or a finding of the capture to its transcript.
func note(t *testing.T, rec *recorder, format string, args ...any) {
	t.Helper()
	msg := strings.TrimSpace(fmt.Sprintf(format, args...))
	t.Log(msg)
	rec.add(record{Note: msg})
}
