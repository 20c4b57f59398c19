package variant

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// TestLoadSecret: created once in the cache directory (the user's only),
// the same on every later load, replaced by the variable when it is set.
func TestLoadSecret(t *testing.T) {
	dir := t.TempDir()
	a, err := LoadSecret(dir, nil)
	if err != nil || len(a) != 32 {
		t.Fatalf("secret %x, %v", a, err)
	}
	st, err := os.Stat(filepath.Join(dir, secretFile))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("secret file %v, %v", st, err)
	}
	b, _ := LoadSecret(dir, nil)
	if string(a) != string(b) {
		t.Error("a second load gave another secret")
	}
	c, _ := LoadSecret(dir, func(k string) string {
		if k == EnvSecret {
			return "ci-secret-of-the-project"
		}
		return ""
	})
	if string(c) != "ci-secret-of-the-project" {
		t.Errorf("the variable was not used: %q", c)
	}
}

// TestChoicesFollowTheSecret: one installation always makes the same
// choices for a version; another installation makes others, so a package
// cannot compute them from the code.
func TestChoicesFollowTheSecret(t *testing.T) {
	s1, s2 := Secret("installation one"), Secret("installation two")
	again := Secret("installation one")
	if s1.Seed("pkg@1.0.0", "canaries") != again.Seed("pkg@1.0.0", "canaries") {
		t.Fatal("not deterministic")
	}
	differ := 0
	for i := range 20 {
		seed := "pkg@1.0." + strings.Repeat("1", i)
		a, b := s1.Witness(seed), s2.Witness(seed)
		if a != b || s1.YearsAhead(seed) != s2.YearsAhead(seed) || s1.WitnessAnswerNet(seed) != s2.WitnessAnswerNet(seed) {
			differ++
		}
	}
	if differ < 15 {
		t.Errorf("only %d of 20 versions got other choices under another secret", differ)
	}
}

// TestWitnessDiffers: the witness run's identity, client and answer range
// are never the canonical ones, whatever the seed.
func TestWitnessDiffers(t *testing.T) {
	s := Secret("installation")
	for i := range 50 {
		seed := "pkg@" + strings.Repeat("9", i)
		id := s.Witness(seed)
		if id.User == Canonical.User || id.Home == Canonical.Home || id.Hostname == Canonical.Hostname || id.MachineID == Canonical.MachineID {
			t.Errorf("%s: identity %+v shares a part with the canonical one", seed, id)
		}
		for _, p := range Profiles {
			c := s.WitnessClient(seed, Client{Name: "claude-ai", Profile: p.Name})
			if c.Name == "claude-ai" || c.Profile == p.Name {
				t.Errorf("%s: witness client %+v against claude-ai %s", seed, c, p.Name)
			}
		}
		if n := s.WitnessAnswerNet(seed); n == sinklog.FakeNet {
			t.Errorf("%s: the witness answers from the default range", seed)
		}
		if y := s.YearsAhead(seed); y < 2 || y > 5 {
			t.Errorf("%s: %d years ahead", seed, y)
		}
	}
}

func TestMovePath(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/home/dev", "/home/alex"},
		{"/home/dev/workspace/a.txt", "/home/alex/workspace/a.txt"},
		{`{"path":"/home/dev/workspace","root":"/home/dev"}`, `{"path":"/home/alex/workspace","root":"/home/alex"}`},
		{"/home/dev/.local/bin:/usr/bin:/home/dev/bin", "/home/alex/.local/bin:/usr/bin:/home/alex/bin"},
		{"/home/devops/x", "/home/devops/x"},
		{"/srv/home/dev", "/srv/home/alex"},
		{"", ""},
	} {
		if got := MovePath(tc.in, "/home/dev", "/home/alex"); got != tc.want {
			t.Errorf("MovePath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestWitnessSpec: the witness spec moves the user, home, working
// directory, decoys, command and environment to its identity, and its
// description names the factors without a secret.
func TestWitnessSpec(t *testing.T) {
	spec := sandbox.Spec{User: "dev", Home: "/home/dev", Workdir: "/home/dev/workspace", ScanDir: "/home/dev/workspace",
		Cmd:         []string{"node", "/srv/mcp/x/index.js", "/home/dev/workspace"},
		Env:         []string{"HOME=/home/dev", "USER=dev", "LOGNAME=dev", "PWD=/home/dev/workspace", "PATH=/usr/bin", "GITHUB_TOKEN=ghp_x"},
		CanaryFiles: []string{"/home/dev/.aws/credentials"}}
	s := Secret("installation")
	c, id := s.WitnessSpec(&spec, "pkg@1.0.0", Client{Name: "claude-ai", Profile: "desktop"})
	if spec.User != id.User || spec.Home != id.Home || spec.Workdir != id.Home+"/workspace" || spec.ScanDir != spec.Workdir {
		t.Errorf("spec %+v for %+v", spec, id)
	}
	if spec.Cmd[2] != id.Home+"/workspace" || spec.CanaryFiles[0] != id.Home+"/.aws/credentials" {
		t.Errorf("paths %q %q", spec.Cmd, spec.CanaryFiles)
	}
	for _, want := range []string{"HOME=" + id.Home, "USER=" + id.User, "LOGNAME=" + id.User, "GITHUB_TOKEN=ghp_x"} {
		if !slices.Contains(spec.Env, want) {
			t.Errorf("env %q lacks %s", spec.Env, want)
		}
	}
	if spec.Prelaunches != 2 || spec.Hostname != id.Hostname || spec.Net.AnswerNet == "" {
		t.Errorf("spec %+v", spec)
	}
	v := Describe(spec, "witness run", "its own", c.Name+"/"+c.Version, c.Profile)
	if v.User != id.User || v.Launches != 3 || v.AnswerNet != spec.Net.AnswerNet {
		t.Errorf("variant %+v", v)
	}
	// An OCI image's own user is not moved.
	oci := sandbox.Spec{User: "node", Home: "/home/node", Workdir: "/app"}
	Relocate(&oci, Canonical, id)
	if oci.User != "node" || oci.Home != "/home/node" {
		t.Errorf("an image's user moved: %+v", oci)
	}
}

// TestTraced: the traced runs share the canonical machine id, seeded
// randomness (node only) and a clock years ahead.
func TestTraced(t *testing.T) {
	s := Secret("installation")
	spec := sandbox.Spec{Cmd: []string{"node", "/srv/mcp/x/index.js"}}
	s.Traced(&spec, "pkg@1.0.0")
	if spec.MachineID != Canonical.MachineID || spec.ClockAhead < 2 || len(spec.Cmd) != 3 || !strings.HasPrefix(spec.Cmd[1], RandomSeedFlag) {
		t.Errorf("spec %+v", spec)
	}
	py := sandbox.Spec{Cmd: []string{"/usr/bin/python3", "-m", "srv"}}
	s.Traced(&py, "pkg@1.0.0")
	if len(py.Cmd) != 3 {
		t.Errorf("python got a node flag: %q", py.Cmd)
	}
}

// TestRelocateWritable: the package's copy where npx puts it is in the
// home, and moves with it.
func TestRelocateWritable(t *testing.T) {
	spec := sandbox.Spec{User: "dev", Home: "/home/dev", Writable: &sandbox.Writable{Src: "/srv/mcp", Dst: "/home/dev/.npm/_npx/0123456789abcdef"}}
	orig := spec.Writable
	Relocate(&spec, Canonical, Identity{User: "sam", Home: "/home/sam"})
	if spec.Writable.Dst != "/home/sam/.npm/_npx/0123456789abcdef" || orig.Dst != "/home/dev/.npm/_npx/0123456789abcdef" {
		t.Errorf("writable %+v (the original %+v)", spec.Writable, orig)
	}
}

func TestMoveParams(t *testing.T) {
	got := MoveParams(map[string]any{"path": "/home/dev/workspace/a.txt"}, "/home/dev", "/home/sam")
	if b, _ := json.Marshal(got); string(b) != `{"path":"/home/sam/workspace/a.txt"}` {
		t.Errorf("moved %s", b)
	}
	p := map[string]any{"x": 1}
	if got := MoveParams(p, "/home/dev", "/home/dev"); got == nil {
		t.Error("nil")
	}
}

// TestClockShifts: the primary's and the calibration run's clocks start
// the same 1 to 14 days, hours and minutes ahead and 40 to 55 seconds
// apart, the same on every audit of a version on an installation, and
// neither run can tell from its own shift which one it is: over many
// versions, each is the larger about half the time.
func TestClockShifts(t *testing.T) {
	s := Secret("installation")
	larger := 0
	for i := range 400 {
		seed := "pkg@1.0." + strconv.Itoa(i)
		a, b := s.ClockShifts(seed)
		if a2, b2 := s.ClockShifts(seed); a2 != a || b2 != b {
			t.Fatalf("%s: not stable: %d %d, then %d %d", seed, a, b, a2, b2)
		}
		for _, x := range []int{a, b} {
			if x < 86400 || x >= 15*86400 {
				t.Fatalf("%s: shift %d out of 1 to 14 days", seed, x)
			}
		}
		if d := max(a-b, b-a); d < 40 || d > 55 || a/60 != b/60 {
			t.Fatalf("%s: shifts %d and %d are not 40 to 55 seconds apart in one minute", seed, a, b)
		}
		if a > b {
			larger++
		}
	}
	if larger < 150 || larger > 250 {
		t.Errorf("the primary's shift is the larger in %d of 400", larger)
	}
	spec := sandbox.Spec{}
	s.Traced(&spec, "pkg@1.0.0")
	cal := spec
	s.CalibrationClock(&cal, "pkg@1.0.0")
	if a, b := s.ClockShifts("pkg@1.0.0"); spec.ClockShift != a || cal.ClockShift != b {
		t.Errorf("traced %d, calibration %d, want %d and %d", spec.ClockShift, cal.ClockShift, a, b)
	}
}
