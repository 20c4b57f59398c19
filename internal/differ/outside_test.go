package differ

import (
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/trace"
)

// outsideOf builds an outside view from the watcher's "exec COUNT NAMES…"
// lines and the home scan's "size path" lines, as the audit does from the
// sandbox's parsed files (audit.outsideOf).
func outsideOf(watch, status, home []string) *Outside {
	v := &Outside{Home: map[string]string{}, Opened: map[string]bool{}}
	for _, l := range watch {
		f := strings.Fields(l)
		switch {
		case len(f) == 1 && f[0] == "lost":
			v.Lost = true
		case len(f) >= 3 && f[0] == "exec":
			var names []string
			for _, n := range f[2:] {
				names = append(names, path.Clean(n))
			}
			v.Execs = append(v.Execs, names)
		}
	}
	v.WatchLate = slices.Contains(status, "watch-not-ready")
	for _, l := range home {
		size, p, ok := strings.Cut(l, " ")
		if _, err := strconv.Atoi(size); ok && err == nil {
			v.Home[strings.Replace(p, "/home/dev/", "~/", 1)] = size
		}
	}
	return v
}

func TestOutsideOnlyIn(t *testing.T) {
	t.Parallel()
	traced := outsideOf(nil, nil, []string{"12 /home/dev/.cache/tool/a1b2", "5 /home/dev/.notes"})
	witness := outsideOf([]string{
		"exec 2 /usr/local/bin/node",
		"exec 1 /usr/bin/setpriv /bin/setpriv",
		"exec 1 /usr/bin/dash /usr/bin/sh /bin/sh",
		"exec 1 /usr/bin/git /bin/git",
		"exec x", "read 1.5 /home/dev/.aws/credentials",
	}, nil, []string{
		"40 /home/dev/.bashrc", "5 /home/dev/.notes", "12 /home/dev/.cache/tool/c3d4",
		"bad line", "7 /home/dev/.ssh/authorized_keys",
	})
	progs := map[string]bool{"/usr/local/bin/node": true, "/bin/sh": true}
	got := OutsideOnlyIn(traced, witness, progs)
	var subjects []string
	for k := range got {
		subjects = append(subjects, k)
	}
	want := []string{"home file ~/.bashrc changed", "home file ~/.ssh/authorized_keys changed", "process /usr/bin/git"}
	if diff := cmp.Diff(want, slices.Sorted(slices.Values(subjects))); diff != "" {
		t.Errorf("subjects (-want +got):\n%s", diff)
	}
	// A watcher that started late: programs are not compared, and the
	// manifest says so.
	late := outsideOf(nil, []string{"watch-not-ready"}, []string{"12 /home/dev/.cache/tool/a1b2", "5 /home/dev/.notes"})
	if got := OutsideOnlyIn(late, witness, progs); len(got) != 2 || WatchNote(late, witness) == "" {
		t.Errorf("late traced watcher: %v", got)
	}
	// A witness watcher that lost events (a flood of opens) is a
	// difference of its own; a traced one that did is a note.
	lost := outsideOf([]string{"lost", "exec 1 /usr/local/bin/node"}, nil, nil)
	if _, ok := OutsideOnlyIn(traced, lost, progs)["file watcher lost events"]; !ok {
		t.Error("a witness watcher that lost events is no difference")
	}
	if got := OutsideOnlyIn(lost, witness, progs); got["process /usr/bin/git"] != nil || WatchNote(lost, witness) == "" {
		t.Errorf("traced watcher lost events: %v", got)
	}
}

// TestTracedProgramsByWatcher: what the traced run's own watcher saw (a
// script's interpreter) counts as the traced run's, but not its
// entrypoint's programs.
func TestTracedProgramsByWatcher(t *testing.T) {
	t.Parallel()
	lines := []string{
		"exec 1 /usr/bin/env /bin/env", "exec 1 /usr/bin/strace /bin/strace", "exec 1 /usr/bin/date /bin/date",
		"exec 1 /usr/bin/curl /bin/curl", "exec 1 /usr/bin/id /bin/id",
	}
	r := Run{Manifest: &m.Manifest{Phases: []m.Phase{{Name: m.PhaseStartup, Processes: []m.Process{{Path: "/usr/local/bin/npm"}}}}},
		Outside: outsideOf(lines, nil, nil)}
	r.Outside.Opened = map[string]bool{"/usr/bin/id": true}
	got := Programs(r)
	for p, want := range map[string]bool{"/usr/local/bin/npm": true, "/usr/bin/env": true, "/bin/env": true,
		"/usr/bin/strace": false, "/usr/bin/date": false, "/bin/date": false, "/usr/bin/id": false, "/bin/id": false,
		"/usr/bin/curl": false} {
		if got[p] != want {
			t.Errorf("tracedPrograms[%s] = %v, want %v", p, got[p], want)
		}
	}
	// A cut trace or an odd exec: the watcher's programs do not count.
	r.Outside.OddExec = true
	if got := Programs(r); got["/usr/bin/env"] || !got["/usr/local/bin/npm"] {
		t.Errorf("with an odd exec: %v", got)
	}
}

// TestBinOpened: successful opens by name of files in the bin directories,
// by the path given and the one the descriptor resolved to.
func TestBinOpened(t *testing.T) {
	t.Parallel()
	ev := func(name string, args []string, ret, retPath string) trace.Event {
		e := trace.Event{Name: name, Args: args, Ret: ret, RetPath: retPath}
		if strings.HasPrefix(ret, "-1 ") {
			e.Errno = "ENOENT"
		}
		return e
	}
	events := []trace.Event{
		ev("openat", []string{"AT_FDCWD", `"/bin/id"`, "O_RDONLY|O_CLOEXEC"}, "21", "/usr/bin/id"),
		ev("openat", []string{"AT_FDCWD", `"/usr/bin/curl"`, "O_RDONLY"}, "-1 ENOENT (No such file or directory)", ""),
		ev("openat", []string{"AT_FDCWD", `"/usr/lib/x86_64-linux-gnu/libc.so.6"`, "O_RDONLY"}, "3", "/usr/lib/x86_64-linux-gnu/libc.so.6"),
		ev("stat", []string{`"/usr/bin/git"`, "{...}"}, "0", ""),
		ev("execve", []string{`"/usr/local/sbin/node"`, `["node"]`, "0x0"}, "-1 ENOENT (No such file or directory)", ""),
	}
	got, odd := BinOpened(events)
	if diff := cmp.Diff([]string{"/bin/id", "/usr/bin/id"}, got); diff != "" || odd {
		t.Errorf("BinOpened (-want +got):\n%s odd exec %v", diff, odd)
	}
	// An exec that failed after the kernel may have opened a program (a
	// chain of scripts ends in ELOOP): the watcher's view cannot be matched.
	loop := ev("execve", []string{`"/tmp/a"`, `["/tmp/a"]`, "0x0"}, "-1 ELOOP (Too many levels of symbolic links)", "")
	loop.Errno = "ELOOP"
	if _, odd := BinOpened(append(events, loop)); !odd {
		t.Error("an ELOOP exec is not odd")
	}
}

func TestObservationsRawIP(t *testing.T) {
	t.Parallel()
	man := &m.Manifest{Phases: []m.Phase{{Name: m.PhaseStartup, Network: []m.Connection{
		{Proto: "tcp", Op: "connect", Address: "198.51.100.7", Port: 4444, Protocol: "other", Category: m.ConnEgress},
		{Proto: "tcp", Op: "connect", Port: 443, Category: m.ConnEgress},
	}}}}
	obs := Observations(man, man)
	if ev, ok := obs["connection tcp 198.51.100.7:4444"]; !ok || len(obs) != 1 || !slices.Equal(ev, []string{"startup: connect 198.51.100.7 (sink saw: other)"}) {
		t.Errorf("observations = %v", obs)
	}
}

// TestWitnessOnlyCanaryIsTheftNotDifference: the witness run plants its
// own subset of canary variables, so its theft of one the traced run did
// not have is a canary hit in the manifest, not "behaves differently when
// traced".
func TestWitnessOnlyCanaryIsTheftNotDifference(t *testing.T) {
	t.Parallel()
	hit := func(name string) m.CanaryHit {
		return m.CanaryHit{Canary: name, How: m.HowSent, Evidence: "https POST dormant.fixture.example/c"}
	}
	traced := Run{Manifest: &m.Manifest{Run: m.Run{CanaryEnv: []string{"GITHUB_TOKEN", "OPENAI_API_KEY"}},
		Phases: []m.Phase{{Name: m.PhaseStartup, Canaries: []m.CanaryHit{hit("env:GITHUB_TOKEN")}}}}}
	witness := Run{Manifest: &m.Manifest{Run: m.Run{CanaryEnv: []string{"NPM_TOKEN", "OPENAI_API_KEY"}},
		Phases: []m.Phase{{Name: m.PhaseStartup, Canaries: []m.CanaryHit{hit("env:NPM_TOKEN"), hit("env:OPENAI_API_KEY")}}}}}
	diffs := Witness(traced, witness)
	if len(diffs) != 1 || diffs[0].Subject != "canary env:OPENAI_API_KEY sent" {
		t.Errorf("differences = %+v, want only the variable both runs planted", diffs)
	}
	AddOnlyPlanted(traced.Manifest, witness.Manifest, "witness run")
	got := traced.Manifest.PhaseByName(m.PhaseStartup).Canaries
	if len(got) != 2 || got[1].Canary != "env:NPM_TOKEN" || !strings.HasPrefix(got[1].Evidence, "witness run: ") {
		t.Errorf("traced canaries = %+v", got)
	}
}

// TestWitnessConnectionBySinkView: the same connection seen with and
// without bytes is no difference (a run stopped a moment sooner); one
// only the traced run made is listed unless the sink saw nothing of it.
func TestWitnessConnectionBySinkView(t *testing.T) {
	t.Parallel()
	conn := func(protocol string, port int) m.Connection {
		return m.Connection{Proto: "tcp", Op: "connect", Address: "198.51.100.7", Port: port, Protocol: protocol, Category: m.ConnEgress}
	}
	run := func(cs ...m.Connection) Run {
		return Run{Manifest: &m.Manifest{Phases: []m.Phase{{Name: m.PhaseStartup, Network: cs}}}}
	}
	if d := Witness(run(conn("other", 4444)), run(conn("none", 4444))); len(d) != 0 {
		t.Errorf("same connection, other bytes: %+v", d)
	}
	if d := Witness(run(conn("", 4444)), run()); len(d) != 0 {
		t.Errorf("traced only, unseen by the sink: %+v", d)
	}
	d := Witness(run(conn("other", 4444)), run())
	if len(d) != 1 || d[0].Subject != "connection tcp 198.51.100.7:4444" || d[0].Only != "traced" {
		t.Errorf("traced only: %+v", d)
	}
	d = Witness(run(), run(conn("other", 5555)))
	if len(d) != 1 || d[0].Subject != "connection tcp 198.51.100.7:5555" || d[0].Only != "" {
		t.Errorf("witness only: %+v", d)
	}
}

// TestBrowserProfileAndLauncher: a browser profile named after a hash of
// the workspace path (which the runs vary) is the same place in both
// runs, and a traced run that ran the image's browser ran its launcher,
// whatever name the program used; another file in the cache, or a
// program the traced run did not run, still differs.
func TestBrowserProfileAndLauncher(t *testing.T) {
	t.Parallel()
	traced := outsideOf(nil, nil, []string{"41 /home/dev/.cache/ms-playwright-mcp/mcp-chrome-1a2b3c4/Default/GCM Store/MANIFEST-000001"})
	witness := outsideOf([]string{"exec 1 /usr/bin/chromium /usr/bin/google-chrome /usr/bin/x-www-browser", "exec 1 /usr/bin/curl"}, nil,
		[]string{"41 /home/dev/.cache/ms-playwright-mcp/mcp-chrome-8c2ba53/Default/GCM Store/MANIFEST-000002",
			"9 /home/dev/.cache/ms-playwright-mcp/hooks/run.sh"})
	run := Run{Manifest: &m.Manifest{Phases: []m.Phase{{Name: "call:browser_navigate", Processes: []m.Process{
		{Path: "/opt/google/chrome/chrome"}, {Path: sandbox.ChromiumBinary}}}}}}
	got := OutsideOnlyIn(traced, witness, Programs(run))
	var subjects []string
	for k := range got {
		subjects = append(subjects, k)
	}
	want := []string{"home file ~/.cache/ms-playwright-mcp/hooks/run.sh changed", "process /usr/bin/curl"}
	if diff := cmp.Diff(want, slices.Sorted(slices.Values(subjects))); diff != "" {
		t.Errorf("subjects (-want +got):\n%s", diff)
	}
	if launchedBy[sandbox.ChromiumBinary] != sandbox.ChromiumPath {
		t.Errorf("launchedBy does not name the sandbox's browser and launcher")
	}
	// Without the browser in the trace, the launcher is a difference.
	if got := OutsideOnlyIn(traced, witness, Programs(Run{Manifest: &m.Manifest{}})); got["process /usr/bin/chromium"] == nil {
		t.Errorf("a browser only the witness ran is no difference: %v", got)
	}
}

// TestDatedHomeFiles: a file named after the day (a log per day) is the
// same file in the witness run, whose clock is the real one, and in the
// traced run, whose clock starts days ahead; another name, or a dated
// file the traced run did not write at that place, still differs.
func TestDatedHomeFiles(t *testing.T) {
	t.Parallel()
	traced := outsideOf(nil, nil, []string{"120 /home/dev/.okx/logs/trade-2026-12-05.log", "9 /home/dev/.app/snap_20261205T101112.json"})
	witness := outsideOf(nil, nil, []string{"118 /home/dev/.okx/logs/trade-2026-12-02.log", "9 /home/dev/.app/snap_20261202T091011.json",
		"7 /home/dev/.okx/logs/audit-2026-12-02.log", "5 /home/dev/.config/autostart/run-2026-12-02.desktop"})
	got := OutsideOnlyIn(traced, witness, nil)
	var subjects []string
	for k := range got {
		subjects = append(subjects, k)
	}
	want := []string{"home file ~/.config/autostart/run-2026-12-02.desktop changed", "home file ~/.okx/logs/audit-2026-12-02.log changed"}
	if diff := cmp.Diff(want, slices.Sorted(slices.Values(subjects))); diff != "" {
		t.Errorf("subjects (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		in, want string
	}{
		{"trade-2026-12-02.log", "trade-<date>.log"},
		{"x_2026_01_31_y", "x_<date>_y"},
		{"2026.12.02", "<date>"},
		{"snap_20261202T091011.json", "snap_<date>.json"},
		{"build-2026-13-02", "build-2026-13-02"},
		{"v1234567", "v1234567"},
	} {
		if got := reDate.ReplaceAllString(tc.in, "<date>"); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestWitnessHostAlsoTraced: a host the witness run contacted and the
// primary did not, that the calibration run contacted under the tracer
// too (a browser's background request, as its timers decide), names that
// run; a host no traced run contacted names none, and neither does a
// canary hit, judged as one wherever it happened.
func TestWitnessHostAlsoTraced(t *testing.T) {
	t.Parallel()
	lookup := func(names ...string) *m.Manifest {
		ph := m.Phase{Name: m.PhaseStartup}
		for _, n := range names {
			ph.DNS = append(ph.DNS, m.DNSQuery{Name: n, Type: "A"})
		}
		return &m.Manifest{Run: m.Run{CanaryEnv: []string{"GITHUB_TOKEN"}}, Phases: []m.Phase{ph}}
	}
	traced := Run{Manifest: lookup()}
	witness := Run{Manifest: lookup("play.browser.example", "collect.thief.example")}
	witness.Manifest.Phases[0].Canaries = []m.CanaryHit{{Canary: "env:GITHUB_TOKEN", How: m.HowSent, Evidence: "https POST collect.thief.example/c"}}
	cal := lookup("play.browser.example")
	cal.Phases[0].Canaries = witness.Manifest.Phases[0].Canaries
	got := map[string]string{}
	for _, d := range Witness(traced, witness, Run{Name: "calibration run", Manifest: cal}, Run{Name: "secrets run", Manifest: lookup()}) {
		got[d.Subject] = d.AlsoTraced
	}
	want := map[string]string{"host browser.example": "calibration run", "host thief.example": "", "canary env:GITHUB_TOKEN sent": ""}
	if len(got) != len(want) {
		t.Fatalf("differences %v, want %v", got, want)
	}
	for k, v := range want {
		if a, ok := got[k]; !ok || a != v {
			t.Errorf("%s: also traced %q (present %v), want %q", k, a, ok, v)
		}
	}
}
