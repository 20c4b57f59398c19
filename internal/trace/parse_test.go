package trace

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestGolden parses real traces recorded in the sandbox and compares a
// readable rendering of every interpreted record with a golden file.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.strace")
	if len(files) == 0 {
		t.Fatal("no traces in testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := Parse(bytes.NewReader(data), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			got := render(tr)
			golden := strings.TrimSuffix(f, ".strace") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func render(tr *Trace) string {
	var b strings.Builder
	fmt.Fprintf(&b, "lines=%d malformed=%d events=%d truncated=%v\n", tr.Stats.Lines, tr.Stats.Malformed, len(tr.Events), tr.Stats.Truncated)
	for _, ev := range tr.Events {
		r := Interpret(ev)
		if r.Kind == KindOther {
			continue
		}
		fmt.Fprintf(&b, "%d pid=%d %s op=%s", r.Seq, r.PID, r.Name, r.Op)
		if r.Path != "" {
			fmt.Fprintf(&b, " path=%q", r.Path)
		}
		if r.Path2 != "" {
			fmt.Fprintf(&b, " path2=%q", r.Path2)
		}
		if r.Write || r.Create || r.Trunc {
			fmt.Fprintf(&b, " w=%v c=%v t=%v", r.Write, r.Create, r.Trunc)
		}
		if r.Argv != nil {
			fmt.Fprintf(&b, " argv=%q", r.Argv)
		}
		if r.Addr != nil {
			fmt.Fprintf(&b, " addr=%+v", *r.Addr)
		}
		if r.SockFamily != "" || r.SockType != "" {
			fmt.Fprintf(&b, " sock=%s/%s", r.SockFamily, r.SockType)
		}
		for _, d := range r.Data {
			fmt.Fprintf(&b, " data=%q", d)
		}
		if r.Child != 0 {
			fmt.Fprintf(&b, " child=%d", r.Child)
		}
		if r.UntracedClone() {
			b.WriteString(" UNTRACED")
		}
		if r.Incomplete {
			b.WriteString(" incomplete")
		} else {
			fmt.Fprintf(&b, " ret=%d errno=%s", r.RetVal, r.Errno)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func parseString(t *testing.T, s string) *Trace {
	t.Helper()
	tr, err := Parse(strings.NewReader(s), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestJoinUnfinishedResumed(t *testing.T) {
	tr := parseString(t, `21    1795973078.657931 openat(AT_FDCWD</home/dev>, "stdio.js", O_RDONLY|O_CLOEXEC <unfinished ...>
19    1795973078.658044 openat(AT_FDCWD</home/dev>, "/x/types.js", O_RDONLY|O_CLOEXEC <unfinished ...>
21    1795973078.692741 <... openat resumed>) = 20
19    1795973078.692820 <... openat resumed>) = -1 ENOENT (No such file or directory)
`)
	if len(tr.Events) != 2 || tr.Stats.Malformed != 0 {
		t.Fatalf("events=%d malformed=%d", len(tr.Events), tr.Stats.Malformed)
	}
	a, b := Interpret(tr.Events[0]), Interpret(tr.Events[1])
	if a.Path != "/home/dev/stdio.js" || a.RetVal != 20 || a.Errno != "" || a.PID != 21 {
		t.Errorf("first: %+v", a)
	}
	if b.Path != "/x/types.js" || b.Errno != "ENOENT" {
		t.Errorf("second: %+v", b)
	}
	// The event time is the start of the call.
	if want := time.Unix(1795973078, 657931000).UTC(); !a.Time.Equal(want) {
		t.Errorf("time %v, want %v", a.Time, want)
	}
}

func TestReturnedFDPath(t *testing.T) {
	tr := parseString(t, `19 1.0 openat(AT_FDCWD</home/dev/workspace>, "/etc/localtime", O_RDONLY|O_CLOEXEC) = 17</usr/share/zoneinfo/Etc/UTC>
19 1.1 openat(AT_FDCWD</>, "/tmp/x", O_RDONLY) = 18</home/dev/my secrets/id rsa>
`)
	if got := tr.Events[0].RetPath; got != "/usr/share/zoneinfo/Etc/UTC" || tr.Events[0].RetVal != 17 {
		t.Errorf("RetPath %q RetVal %d", got, tr.Events[0].RetVal)
	}
	if got := tr.Events[1].RetPath; got != "/home/dev/my secrets/id rsa" {
		t.Errorf("RetPath with spaces %q", got)
	}
}

func TestIncompleteCallsKept(t *testing.T) {
	tr := parseString(t, `7 1.000001 connect(3, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("192.0.2.10")}, 16 <unfinished ...>
`)
	if len(tr.Events) != 1 || !tr.Events[0].Incomplete {
		t.Fatalf("%+v", tr.Events)
	}
	r := Interpret(tr.Events[0])
	if r.Addr == nil || r.Addr.IP != "192.0.2.10" || r.Addr.Port != 443 {
		t.Fatalf("addr %+v", r.Addr)
	}
}

func TestQuotedTextCannotForgeStructure(t *testing.T) {
	// A path chosen by the traced program that looks like the end of a call.
	tr := parseString(t, `5 2.5 openat(AT_FDCWD</>, "/tmp/a\") = 0\n5 2.6 execve(\"/bin/sh\"", O_RDONLY) = -1 ENOENT (No such file or directory)
`)
	if len(tr.Events) != 1 {
		t.Fatalf("got %d events", len(tr.Events))
	}
	r := Interpret(tr.Events[0])
	if r.Path != "/tmp/a\") = 0\n5 2.6 execve(\"/bin/sh\"" || r.Errno != "ENOENT" {
		t.Fatalf("%q %q", r.Path, r.Errno)
	}
}

func TestUnquote(t *testing.T) {
	for _, tc := range []struct {
		in    string
		want  string
		trunc bool
	}{
		{`"abc"`, "abc", false},
		{`"a\"b\\c"`, `a"b\c`, false},
		{`"\0\303\277\n\t"`, "\x00\xc3\xbf\n\t", false},
		{`"\x41\x4a"`, "AJ", false},
		{`"\1010"`, "A0", false},
		{`"hello"...`, "hello", true},
		{`"unterminated`, "unterminated", true},
		{`@"abstract"`, "abstract", false},
	} {
		b, tr, ok := Unquote(tc.in)
		if !ok || string(b) != tc.want || tr != tc.trunc {
			t.Errorf("Unquote(%s) = %q,%v,%v want %q,%v", tc.in, b, tr, ok, tc.want, tc.trunc)
		}
	}
	if _, _, ok := Unquote("AT_FDCWD"); ok {
		t.Error("unquoted text must not decode")
	}
}

func TestInterpretNetwork(t *testing.T) {
	tr := parseString(t, `25 1.1 sendmmsg(23<UDP:[127.0.0.1:41234->127.0.0.1:53]>, [{msg_hdr={msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="P|\1\0\0\1\0\0\0\0\0\0\3api\4evil\7example\0\0\1\0\1", iov_len=34}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, msg_len=34}, {msg_hdr={msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="\273a\1\0\0\1\0\0\0\0\0\0\3api\4evil\7example\0\0\34\0\1", iov_len=34}], msg_iovlen=1, msg_controllen=0, msg_flags=0}}], 2, MSG_NOSIGNAL) = 1
11 1.2 sendmsg(19<UDP:[0.0.0.0:5000]>, {msg_name={sa_family=AF_INET, sin_port=htons(9999), sin_addr=inet_addr("192.0.2.1")}, msg_namelen=16, msg_iov=[{iov_base="hi", iov_len=2}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, 0) = -1 ENETUNREACH (Network is unreachable)
11 1.3 connect(18, {sa_family=AF_INET6, sin6_port=htons(80), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2001:db8::1", &sin6_addr), sin6_scope_id=0}, 28) = -1 EADDRNOTAVAIL (Cannot assign requested address)
11 1.4 connect(18<socket:[99]>, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT (No such file or directory)
11 1.5 sendto(20<TCP:[10.0.0.1:1->10.0.0.2:2]>, "GET / HTTP/1.1\r\n"..., 4096, MSG_NOSIGNAL, NULL, 0) = 4096
`)
	recs := make([]Record, len(tr.Events))
	for i, ev := range tr.Events {
		recs[i] = Interpret(ev)
	}
	if got := len(recs[0].Data); got != 2 || recs[0].SockType != "udp" {
		t.Errorf("sendmmsg: %d buffers, type %q", got, recs[0].SockType)
	}
	if !bytes.Contains(recs[0].Data[1], []byte("\x07example\x00\x00\x1c")) {
		t.Errorf("sendmmsg AAAA buffer: %q", recs[0].Data[1])
	}
	if a := recs[1].Addr; a == nil || a.IP != "192.0.2.1" || a.Port != 9999 || string(recs[1].Data[0]) != "hi" || recs[1].Errno != "ENETUNREACH" {
		t.Errorf("sendmsg: %+v %+v", recs[1], a)
	}
	if a := recs[2].Addr; a == nil || a.Family != "AF_INET6" || a.IP != "2001:db8::1" || a.Port != 80 {
		t.Errorf("connect6: %+v", a)
	}
	if a := recs[3].Addr; a == nil || a.Path != "/var/run/nscd/socket" {
		t.Errorf("unix: %+v", a)
	}
	if !recs[4].DataTrunc || recs[4].SockType != "tcp" {
		t.Errorf("sendto: %+v", recs[4])
	}
}

func TestMalformedCountedNotFatal(t *testing.T) {
	tr := parseString(t, "garbage line\n12 notatime openat()\n\n3 1.0 openat(AT_FDCWD</>, \"/etc/passwd\", O_RDONLY) = 3\n4 1.1 <... nothing\n")
	if len(tr.Events) != 1 || tr.Stats.Malformed != 3 {
		t.Fatalf("events=%d malformed=%d", len(tr.Events), tr.Stats.Malformed)
	}
}

func TestLimits(t *testing.T) {
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "1 1.%06d openat(AT_FDCWD</>, \"/f%d\", O_RDONLY) = 3\n", i, i)
	}
	tr, err := Parse(strings.NewReader(b.String()), Limits{MaxEvents: 10})
	if err != nil || len(tr.Events) != 10 || !tr.Stats.Truncated {
		t.Fatalf("events=%d truncated=%v err=%v", len(tr.Events), tr.Stats.Truncated, err)
	}
	tr, err = Parse(strings.NewReader(b.String()), Limits{MaxBytes: 500})
	if err != nil || !tr.Stats.Truncated || tr.Stats.Bytes != 500 {
		t.Fatalf("bytes=%d truncated=%v err=%v", tr.Stats.Bytes, tr.Stats.Truncated, err)
	}
	long := "1 1.0 execve(\"/bin/x\", [\"" + strings.Repeat("A", 5000) + "\"], 0x0 /* 1 vars */) = 0\n2 1.1 exit_group(0) = ?\n"
	tr, err = Parse(strings.NewReader(long), Limits{MaxLine: 100})
	if err != nil || len(tr.Events) != 2 || !tr.Events[0].Cut {
		t.Fatalf("long line: %+v %v", tr.Events, err)
	}
	if r := Interpret(tr.Events[0]); r.Path != "/bin/x" || !r.ArgvTrunc {
		t.Fatalf("cut execve: %+v", r)
	}
}

func TestCloneUntraced(t *testing.T) {
	tr := parseString(t, `9 1.0 clone(child_stack=NULL, flags=CLONE_UNTRACED|SIGCHLD) = -1 ENOSYS (Function not implemented)
9 1.1 clone3({flags=CLONE_VM|CLONE_UNTRACED, exit_signal=0, stack=0x7f, stack_size=0x1000}, 88) = 12
`)
	for _, ev := range tr.Events {
		if r := Interpret(ev); !r.UntracedClone() {
			t.Errorf("%s: flags %v", ev.Name, r.CloneFlags)
		}
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.strace")
	for _, file := range files {
		data, _ := os.ReadFile(file)
		for _, line := range bytes.SplitAfter(data, []byte("\n"))[:min(40, bytes.Count(data, []byte("\n")))] {
			f.Add(line)
		}
	}
	f.Add([]byte(`1 1.0 openat(AT_FDCWD</a\>b>, "x\"", O_RDONLY <unfinished ...>` + "\n1 1.1 <... openat resumed>) = 3\n"))
	f.Add([]byte(`2 1.0 sendmmsg(3, [{msg_hdr={msg_iov=[{iov_base="\1\2", iov_len=2}]}}], 1, 0) = 1`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Parse(bytes.NewReader(data), Limits{MaxLine: 4096})
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Events) > tr.Stats.Lines+1 {
			t.Fatalf("%d events from %d lines", len(tr.Events), tr.Stats.Lines)
		}
		for _, ev := range tr.Events {
			_ = Interpret(ev)
		}
	})
}
