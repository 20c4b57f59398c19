package audit_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// ociFixtureDockerfile builds the fixture server as an image from the
// local sandbox image (no pull), without strace or any other program the
// audit's entrypoint uses: mcp-audit must bring its own.
const ociFixtureDockerfile = `FROM %BASE%
LABEL mcp-audit.test-fixture=%TAG%
RUN rm -f /usr/bin/strace /usr/bin/setpriv /usr/bin/tar /usr/bin/find /usr/bin/mawk /usr/bin/awk /etc/alternatives/awk
%NOSHELL%
COPY server.js http-mode.js package.json /srv/fixture/
WORKDIR /srv/fixture
ENTRYPOINT ["node", "/srv/fixture/server.js"]
CMD [%CMD%]
`

// noShell removes every shell, and mkfifo, as a distroless image has
// none (exec form: there is no shell to run it).
const noShell = `RUN ["/usr/bin/rm", "-f", "/usr/bin/sh", "/usr/bin/dash", "/usr/bin/bash", "/usr/bin/rbash", "/usr/bin/mkfifo"]`

// buildOCIFixture builds tag with the fixture's modes as its CMD and
// removes it, and the audit's cached layers on it, after the test.
func buildOCIFixture(t *testing.T, tag string, modes ...string) {
	t.Helper()
	buildOCIImage(t, tag, "", modes...)
}

// buildOCIImage is buildOCIFixture with extra Dockerfile lines.
func buildOCIImage(t *testing.T, tag, extra string, modes ...string) {
	t.Helper()
	eng := testenv.Engine(t)
	base := testenv.Image(t)
	var quoted []string
	for _, md := range modes {
		quoted = append(quoted, `"`+md+`"`)
	}
	// The label makes every tag its own image: tests run side by side,
	// and each removes its image by id.
	df := strings.NewReplacer("%BASE%", base, "%TAG%", tag, "%NOSHELL%", extra, "%CMD%", strings.Join(quoted, ", ")).Replace(ociFixtureDockerfile)
	files := []sandbox.TarFile{{Path: "Dockerfile", Mode: 0o644, Content: []byte(df)}}
	for _, f := range []string{"server.js", "http-mode.js", "package.json"} {
		b, err := os.ReadFile(filepath.Join(fixture, f))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, sandbox.TarFile{Path: f, Mode: 0o644, Content: b})
	}
	testenv.BuildImage(t, tag, files)
	t.Cleanup(func() { removeOCIFixture(eng, tag) })
}

// removeOCIFixture removes the image and the cached layers mcp-audit
// committed on top of it (and only those).
func removeOCIFixture(eng *client.Client, tag string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	img, err := eng.ImageInspect(ctx, tag)
	if err != nil {
		return
	}
	list, _ := eng.ImageList(ctx, client.ImageListOptions{All: true, Filters: client.Filters{}.Add("label", "mcp-audit.package-image=1")})
	for _, it := range list.Items {
		if it.ParentID == img.ID {
			eng.ImageRemove(ctx, it.ID, client.ImageRemoveOptions{Force: true, PruneChildren: true})
		}
	}
	eng.ImageRemove(ctx, img.ID, client.ImageRemoveOptions{Force: true, PruneChildren: true})
}

// TestOCIImage audits the fixture shipped as an image without strace:
// the decoy read at startup, the canary sent in a request and its host
// are found, the image's id is the version, and the image is unchanged.
func TestOCIImage(t *testing.T) {
	t.Parallel()
	const tag = "mcp-audit-ocihttp-fixture:bad"
	buildOCIFixture(t, tag, "read-credentials", "post-fetch")
	eng := testenv.Engine(t)
	before, err := eng.ImageInspect(context.Background(), tag)
	if err != nil {
		t.Fatal(err)
	}
	man := run(t, audit.Options{Target: "oci:" + tag})
	if man.Outcome.Status != m.StatusOK {
		t.Fatalf("outcome %+v\nnotes %q", man.Outcome, man.Run.Notes)
	}
	if man.Target.Ecosystem != m.EcosystemOCI || man.Target.Name != "mcp-audit-ocihttp-fixture" || man.Target.Version != before.ID {
		t.Errorf("target %+v, want version %s", man.Target, before.ID)
	}
	if len(man.Tools) == 0 || man.Tools[0].Name != "echo" {
		t.Errorf("tools %+v", man.Tools)
	}
	st := startupCanaries(t, man, "file:~/.ssh/id_rsa", "file:~/.aws/credentials", "env:GITHUB_TOKEN sent https POST api.fixture.example/v1/send")
	hosts := false
	for _, d := range st.DNS {
		hosts = hosts || d.Name == "api.fixture.example"
	}
	if !hosts {
		t.Errorf("host api.fixture.example not looked up: %+v", st.DNS)
	}
	after, err := eng.ImageInspect(context.Background(), tag)
	if err != nil || after.ID != before.ID {
		t.Errorf("the audited image changed: %s -> %s (%v)", before.ID, after.ID, err)
	}
	if strings.Contains(strings.Join(man.Target.Entry, " "), sandbox.ToolsDir) {
		t.Errorf("entry shows the tools: %q", man.Target.Entry)
	}
}

// startupCanaries checks that the startup phase has each wanted canary hit
// and that there is a critical canary finding; it returns the phase.
func startupCanaries(t *testing.T, man *m.Manifest, wants ...string) *m.Phase {
	t.Helper()
	st := man.PhaseByName(m.PhaseStartup)
	if st == nil {
		t.Fatal("no startup phase")
	}
	var keys []string
	for k := range canaryHits(st) {
		keys = append(keys, k)
	}
	joined := strings.Join(keys, "\n")
	for _, want := range wants {
		if !strings.Contains(joined, want) {
			t.Errorf("no canary hit %q in\n%s", want, joined)
		}
	}
	if !hasFinding(findings(man), policy.KindCanary, policy.Critical, "") {
		t.Errorf("no critical canary finding: %+v", findings(man))
	}
	return st
}

// TestOCIDistroless audits an image without any shell (distroless): the
// entrypoint runs on the bundled one, and the trace reaches its filter
// through a named pipe (strace's "-o |command" needs the image's
// /bin/sh; before, the audit ended without a trace).
func TestOCIDistroless(t *testing.T) {
	t.Parallel()
	const tag = "mcp-audit-ocihttp-fixture:distroless"
	buildOCIImage(t, tag, noShell, "read-credentials", "post-fetch")
	man := run(t, audit.Options{Target: "oci:" + tag, Calls: audit.CallsNone})
	if man.Outcome.Status != m.StatusOK {
		t.Fatalf("outcome %+v\nnotes %q", man.Outcome, man.Run.Notes)
	}
	startupCanaries(t, man, "file:~/.ssh/id_rsa", "env:GITHUB_TOKEN sent https POST api.fixture.example/v1/send")
}

// TestOCIRugPull compares two versions of an image: the clean first (the
// control: no canary, no host) and the second that reads the decoys and
// sends a token.
func TestOCIRugPull(t *testing.T) {
	t.Parallel()
	buildOCIFixture(t, "mcp-audit-ocihttp-fixture:v1")
	buildOCIFixture(t, "mcp-audit-ocihttp-fixture:v2", "read-credentials", "post-fetch")
	old := run(t, audit.Options{Target: "oci:mcp-audit-ocihttp-fixture:v1", Calls: audit.CallsNone})
	cur := run(t, audit.Options{Target: "oci:mcp-audit-ocihttp-fixture:v2", Calls: audit.CallsNone})
	if old.Outcome.Status != m.StatusOK || cur.Outcome.Status != m.StatusOK {
		t.Fatalf("outcomes %+v %+v", old.Outcome, cur.Outcome)
	}
	for _, f := range findings(old) {
		if f.Kind == policy.KindCanary || f.Kind == policy.KindHost {
			t.Errorf("the clean image has a finding: %+v", f)
		}
	}
	if old.Target.Version == cur.Target.Version {
		t.Errorf("both versions are %s", old.Target.Version)
	}
	res := diff.Compare(old, cur, policy.Policy{})
	if res.Verdict != m.VerdictFail {
		t.Errorf("verdict %s; changes %+v", res.Verdict, res.Changes)
	}
	var subjects []string
	for _, c := range res.Changes {
		subjects = append(subjects, c.Subject)
	}
	all := strings.Join(subjects, "\n")
	for _, want := range []string{"api.fixture.example", ".ssh/id_rsa"} {
		if !strings.Contains(all, want) {
			t.Errorf("no change naming %s in\n%s", want, all)
		}
	}
}
