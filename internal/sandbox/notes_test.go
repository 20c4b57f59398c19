package sandbox

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestEveryNoteWordIsParsed reads the embedded entrypoint and fails on a
// note word no parser of statusWords handles: a note the host cannot read
// would be lost.
func TestEveryNoteWordIsParsed(t *testing.T) {
	re := regexp.MustCompile(`\bnote "([a-z.-]+)`)
	words := re.FindAllStringSubmatch(string(entryScript), -1)
	if len(words) < 10 {
		t.Fatalf("found only %d notes in entry.sh", len(words))
	}
	for _, w := range words {
		if statusWords[w[1]] == nil {
			t.Errorf("entry.sh writes the note %q, which no parser handles", w[1])
		}
	}
}

func TestParseStatus(t *testing.T) {
	at := func(s float64) time.Time { sec := int64(s); return time.Unix(sec, int64((s-float64(sec))*1e9)) }
	st := ParseStatus([]string{
		"install-start 100.5", "install-end 0 101.25", "clock 200", "clock-fast 103",
		"started 102", "exit 137 110", "noise-dropped 42", "ca not added", "resolv.conf not replaced",
		"watch-not-ready", "surprise \x1b[31mred", "exit x y", "clock-unavailable extra",
	})
	want := Status{Started: at(102), Exit: &Exit{Code: 137, At: at(110)}, Install: &Span{Start: at(100.5), End: at(101.25)},
		ClockRate: 200, ClockFast: at(103), NoiseDropped: 42, CANotAdded: true, ResolvNotReplaced: true, WatchNotReady: true,
		ClockUnavailable: true, Problems: []string{`surprise \x1b[31mred`, "exit x y", "clock-unavailable extra"}}
	if d := cmp.Diff(want, st); d != "" {
		t.Errorf("status (-want +got):\n%s", d)
	}
	if st.ClockApplied() != 200 || !st.WatchLate() {
		t.Errorf("applied %d late %v", st.ClockApplied(), st.WatchLate())
	}
	if (Status{ClockRate: 200}).ClockApplied() != 1 {
		t.Error("a rate never switched to is real time")
	}
	if s := ParseStatus([]string{"install-start 5"}); s.Install != nil {
		t.Errorf("half a span %+v", s.Install)
	}
}

func TestParseWatch(t *testing.T) {
	w := ParseWatch([]string{"read 12.5 /home/dev/.ssh/id rsa", "exec 2 /usr/bin/env /bin/../usr/bin/env", "lost", "read x /p", "bogus"})
	want := Watch{Lost: true, Reads: []WatchRead{{At: time.Unix(12, 5e8), Path: "/home/dev/.ssh/id rsa"}},
		Execs:    []WatchExec{{Count: 2, Names: []string{"/usr/bin/env", "/usr/bin/env"}}},
		Problems: []string{"read x /p", "bogus"}}
	if d := cmp.Diff(want, w); d != "" {
		t.Errorf("watch (-want +got):\n%s", d)
	}
	flood := make([]string, maxWatchExecs+1)
	for i := range flood {
		flood[i] = "exec 1 /usr/bin/x"
	}
	if w := ParseWatch(flood); !w.Lost || len(w.Execs) != maxWatchExecs {
		t.Errorf("a flood past the bound is lost: %v %d", w.Lost, len(w.Execs))
	}
}

func TestParseAccessTimesAndHome(t *testing.T) {
	a := ParseAccessTimes([]string{"20 10 10 /home/dev/.aws/credentials", "10 10 10 /home/dev/.ssh/id_rsa", "missing /x", "a b c d"})
	if len(a) != 2 || !a[0].Read() || a[1].Read() {
		t.Errorf("access times %+v", a)
	}
	h := ParseHomeChanges([]string{"12 /home/dev/.bashrc", "x /y", strings.Repeat("1", 30) + " /z"})
	if d := cmp.Diff([]HomeChange{{Size: 12, Path: "/home/dev/.bashrc"}}, h); d != "" {
		t.Errorf("home (-want +got):\n%s", d)
	}
}

func FuzzParseNotes(f *testing.F) {
	f.Add("started 1.5\nexit 0 2\nread 1 /a b\nexec 3 /usr/bin/env /x\n5 /home/dev/.x\n1 2 3 /p")
	f.Fuzz(func(t *testing.T, s string) {
		lines := strings.Split(s, "\n")
		st := ParseStatus(lines)
		if len(st.Problems) > maxProblems {
			t.Fatalf("%d problems kept", len(st.Problems))
		}
		ParseWatch(lines)
		ParseAccessTimes(lines)
		ParseHomeChanges(lines)
	})
}
