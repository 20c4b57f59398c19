// Package classify turns parsed trace events into the behavior sections of a
// manifest: per phase, which files were touched and how (normalized and put
// in categories), which processes ran, which network endpoints and names
// were used, whether canaries were touched, and which anti-analysis or
// escape attempts were made.
//
// It is pure: the same events and layout always give the same result.
package classify

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/sink"
	"github.com/mcp-audit/mcp-audit/internal/trace"
)

// Window is one phase of the run in wall-clock time (the sandbox and the
// host share CLOCK_REALTIME). Events before the first window belong to the
// first, events after the last to the last.
type Window struct {
	Name       string
	Start, End time.Time
}

// WitnessRead is a canary file whose access time changed during the run:
// an independent witness that does not rely on the tracer.
type WitnessRead struct {
	Path string // "~/.aws/credentials"
	Time time.Time
}

// Input is everything the classifier needs.
type Input struct {
	Layout   Layout
	Events   []trace.Event
	Windows  []Window
	Canaries *canary.Set
	// Resolvers are the DNS servers configured in the sandbox.
	Resolvers []string
	Witness   []WitnessRead
	// Sink is the network sink's log, when a sink ran.
	Sink []sink.Event
	// TraceTruncated suppresses alerts that assume a complete trace.
	TraceTruncated bool
	// ServerRequests are requests the server made of the client.
	ServerRequests []ServerRequest
	// Plumbing are programs mcp-audit itself starts (the install phase's
	// setpriv and npm); their execs are not the package's behavior.
	Plumbing func(path string, argv []string) bool
}

// ServerRequest is a request from the server, with when it arrived.
type ServerRequest struct {
	Method, Answer string
	Time           time.Time
}

// Output is the classified behavior of a run.
type Output struct {
	Phases []m.Phase
	// Evidence holds full network exchanges for the evidence file.
	Evidence []Evidence
}

// Limits on what one phase may list, so a hostile server cannot make the
// manifest arbitrarily large. What is dropped is counted in an alert.
const (
	maxFilesPerPhase = 2000
	maxProcsPerPhase = 500
	maxArgs          = 64
	maxArgLen        = 256
)

type phaseAcc struct {
	m.Phase
	files   map[m.FileAccess]bool
	summary map[m.FileCount]map[string]bool
	dropped int
}

type sockInfo struct {
	family string
	proto  string
	peer   *trace.SockAddr
	bound  *trace.SockAddr
}

type classifier struct {
	in       Input
	phases   []*phaseAcc
	finder   *canary.Finder
	canaryAt map[string]string // absolute decoy path -> canary name
	aliases  map[string]string // path -> path it stands for (symlink, rename, hard link)
	fds      map[int]map[int]*sockInfo
	pids     map[int]bool
	readCan  map[string]bool   // canary names read according to the trace
	names    map[string]string // address -> name, from the sink's DNS answers
	procs    map[int]string    // pid -> program (normalized argv)
	tcp      []*traceConn
	udpSends []udpSend
	evidence []Evidence
	plumb    map[int]bool // pids running mcp-audit's own plumbing
}

// Classify builds the behavior phases for a run.
func Classify(in Input) Output {
	c := &classifier{
		in:       in,
		canaryAt: map[string]string{},
		aliases:  map[string]string{},
		fds:      map[int]map[int]*sockInfo{},
		pids:     map[int]bool{},
		readCan:  map[string]bool{},
		names:    map[string]string{},
		procs:    map[int]string{},
		plumb:    map[int]bool{},
	}
	if in.Canaries != nil {
		c.finder = canary.NewFinder(in.Canaries.All())
		for _, f := range in.Canaries.Files {
			if f.Canary {
				c.canaryAt[c.absDecoy(f.Path)] = "file:" + f.Path
			}
		}
	}
	windows := in.Windows
	if len(windows) == 0 {
		windows = []Window{{Name: m.PhaseStartup}}
	}
	for _, w := range windows {
		c.phases = append(c.phases, &phaseAcc{
			Phase:   m.Phase{Name: w.Name},
			files:   map[m.FileAccess]bool{},
			summary: map[m.FileCount]map[string]bool{},
		})
	}
	for _, ev := range in.Events {
		c.pids[ev.PID] = true
	}
	c.namesFromSink()
	for _, ev := range in.Events {
		c.event(trace.Interpret(ev))
	}
	c.mergeSink()
	c.witness()
	for _, r := range in.ServerRequests {
		p := c.phaseAt(r.Time)
		p.ServerRequests = append(p.ServerRequests, m.ServerRequest{Method: r.Method, Answer: r.Answer})
	}
	out := make([]m.Phase, 0, len(c.phases))
	for _, p := range c.phases {
		out = append(out, p.finish())
	}
	tmp := m.Manifest{Phases: out}
	m.Canonicalize(&tmp)
	return Output{Phases: tmp.Phases, Evidence: c.evidence}
}

func (c *classifier) absDecoy(p string) string {
	switch {
	case strings.HasPrefix(p, "~/"):
		return path.Join(c.in.Layout.Home, p[2:])
	case strings.HasPrefix(p, "<workspace>/"):
		return path.Join(c.in.Layout.Workspace, strings.TrimPrefix(p, "<workspace>/"))
	}
	return p
}

func (c *classifier) phaseAt(t time.Time) *phaseAcc {
	ws := c.in.Windows
	for i := len(ws) - 1; i >= 0; i-- {
		if !t.Before(ws[i].Start) {
			return c.phases[i]
		}
	}
	return c.phases[0]
}

func (c *classifier) event(r trace.Record) {
	p := c.phaseAt(r.Time)
	if c.plumb[r.PID] && r.Kind != trace.KindExec && r.Kind != trace.KindProcess {
		return // mcp-audit's own plumbing (npm in the install phase)
	}
	switch r.Kind {
	case trace.KindFile:
		c.file(p, r)
	case trace.KindExec:
		c.exec(p, r)
	case trace.KindSocket:
		if r.RetKnown && r.RetVal >= 0 {
			c.table(r.PID)[int(r.RetVal)] = &sockInfo{family: r.SockFamily, proto: protoOf(r.SockType)}
		}
	case trace.KindNet:
		c.net(p, r)
	case trace.KindProcess:
		c.process(p, r)
	case trace.KindAlert:
		c.alert(p, r)
	}
}

// resolve follows known symlinks, renames and hard links (up to 8 hops) so
// that a read of /tmp/x -> ~/.aws/credentials is recognized.
func (c *classifier) resolve(p string) string {
	for range 8 {
		changed := false
		for q := p; q != "/" && q != "." && q != ""; q = path.Dir(q) {
			if t, ok := c.aliases[q]; ok {
				p = path.Join(t, strings.TrimPrefix(p, q))
				changed = true
				break
			}
		}
		if !changed {
			break
		}
	}
	return p
}

func result(r trace.Record) string {
	switch {
	case r.Incomplete || !r.RetKnown && !r.Failed():
		return m.ResultError
	case !r.Failed():
		return m.ResultOK
	case r.Op == "readlink" && r.Errno == "EINVAL":
		return m.ResultOK // exists and is not a symlink: realpath() plumbing
	case r.Errno == "ENOENT" || r.Errno == "ENOTDIR" || r.Errno == "ELOOP":
		return m.ResultMissing
	case r.Errno == "EACCES" || r.Errno == "EPERM" || r.Errno == "EROFS":
		return m.ResultDenied
	}
	return m.ResultError
}

func (c *classifier) file(p *phaseAcc, r trace.Record) {
	if r.Path == "" || !strings.HasPrefix(r.Path, "/") {
		return
	}
	res := result(r)
	access := m.AccessRead
	target := ""
	switch r.Op {
	case "open":
		if r.Write || r.Create || r.Trunc {
			access = m.AccessWrite
		}
	case "access", "readlink":
		access = m.AccessStat
	case "unlink", "rmdir":
		access = m.AccessDelete
	case "mkdir":
		access = m.AccessDirWrite
	case "rename":
		access, target = m.AccessRename, r.Path2
		if res == m.ResultOK {
			c.aliases[r.Path2] = c.resolve(r.Path)
		}
	case "link":
		access, target = m.AccessCreate, r.Path
		// Record the new name, pointing at the existing file.
		r.Path, r.Path2 = r.Path2, r.Path
		if res == m.ResultOK {
			c.aliases[r.Path] = c.resolve(r.Path2)
		}
	case "symlink":
		access, target = m.AccessSymlink, r.Path2
		if res == m.ResultOK {
			t := r.Path2
			if !strings.HasPrefix(t, "/") {
				t = path.Join(path.Dir(r.Path), t)
			}
			c.aliases[r.Path] = c.resolve(t)
		}
	case "chmod", "truncate":
		access = m.AccessWrite
	case "utime":
		access = m.AccessWrite
	case "chdir":
		access = m.AccessChdir
	}
	// open, truncate, chmod and utime follow symlinks; unlink, rename,
	// mkdir, link and symlink act on the last path component itself.
	var real string
	switch r.Op {
	case "open":
		real = c.resolve(r.Path)
		if rp := r.RetPath; rp != "" && strings.HasPrefix(rp, "/") && !strings.HasPrefix(r.Path, "/proc/") &&
			!strings.HasPrefix(r.Path, "/dev/") && !strings.Contains(rp, "<") {
			// strace resolved the returned fd: the file really opened,
			// after every symlink, including ones mcp-audit did not see
			// being made (shipped in a package, made before tracing).
			real = path.Clean(r.RetPath)
		}
	case "truncate", "chmod", "utime", "chdir", "access":
		real = c.resolve(r.Path)
	default:
		real = path.Join(c.resolve(path.Dir(r.Path)), path.Base(r.Path))
	}
	l := c.in.Layout
	norm := l.Normalize(r.Path)
	canaryName := c.canaryAt[real]
	cat := l.Category(l.Normalize(real), canaryName != "", access != m.AccessRead && access != m.AccessStat)
	if access == m.AccessStat && realpathProbes[l.Normalize(real)] {
		cat = m.CatRuntime // realpath() walking the ancestors of a path
	}
	fa := m.FileAccess{Path: norm, Access: access, Category: cat, Result: res}
	if target != "" {
		fa.Target = l.Normalize(target)
	} else if real != r.Path {
		fa.Target = l.Normalize(real)
	}
	if r.Op == "utime" && (cat == m.CatCanary || cat == m.CatSensitive) {
		p.Alerts = append(p.Alerts, m.Alert{Kind: m.AlertTimestamps, Detail: "timestamps changed on " + l.Normalize(real)})
	}
	if canaryName != "" && res == m.ResultOK {
		how := map[string]string{m.AccessRead: "file-read", m.AccessWrite: "file-write", m.AccessDelete: "file-delete",
			m.AccessRename: "file-rename"}[access]
		if how != "" {
			ev := norm
			if fa.Target != "" {
				ev = norm + " -> " + fa.Target
			}
			p.Canaries = append(p.Canaries, m.CanaryHit{Canary: canaryName, How: how, Evidence: ev})
			if how == "file-read" {
				c.readCan[canaryName] = true
			}
		}
	}
	// Successful reads and probes of the server's own code and of the
	// runtime are expected and numerous: count them instead of listing.
	if (cat == m.CatOwnPackage || cat == m.CatRuntime) && (access == m.AccessRead || access == m.AccessStat || access == m.AccessChdir) ||
		access == m.AccessWrite && benignWrites[norm] {
		k := m.FileCount{Category: cat, Access: access, Result: res}
		if p.summary[k] == nil {
			p.summary[k] = map[string]bool{}
		}
		p.summary[k][norm] = true
		return
	}
	if len(p.files) >= maxFilesPerPhase && !p.files[fa] {
		p.dropped++
		return
	}
	p.files[fa] = true
}

// Directories whose existence probes are realpath() walking to something
// below them.
var realpathProbes = map[string]bool{"/": true, "/etc": true, "/usr": true, "/usr/share": true, "/usr/local": true,
	"/usr/lib": true, "/home": true, "/srv": true, "/opt": true, "/tmp": true, "/var": true, "/etc/localtime": true}

// Devices every program writes to.
var benignWrites = map[string]bool{"/dev/null": true, "/dev/tty": true, "/dev/stdout": true, "/dev/stderr": true}

var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ash": true, "ksh": true,
	"csh": true, "tcsh": true, "fish": true, "busybox": true, "mksh": true}

func (c *classifier) exec(p *phaseAcc, r trace.Record) {
	l := c.in.Layout
	argv := make([]string, 0, min(len(r.Argv), maxArgs))
	for i, a := range r.Argv {
		if i == maxArgs {
			argv = append(argv, fmt.Sprintf("…(%d more)", len(r.Argv)-maxArgs))
			break
		}
		for _, h := range c.finder.FindString(a) {
			p.Canaries = append(p.Canaries, m.CanaryHit{Canary: h.Canary, How: "argv", Evidence: l.Normalize(r.Path), Encoding: h.Encoding})
		}
		if c.in.Canaries != nil {
			a = c.in.Canaries.Redact(a)
		}
		if strings.HasPrefix(a, "/") {
			a = l.Normalize(a)
		}
		if len(a) > maxArgLen {
			a = a[:maxArgLen] + "…"
		}
		argv = append(argv, a)
	}
	if r.ArgvTrunc {
		argv = append(argv, "…")
	}
	if r.Path != "" && (!r.Failed() || r.Incomplete) && len(r.Argv) > 0 {
		c.setProcess(r.PID, r.Argv)
	}
	if r.RetKnown && !r.Failed() || r.Incomplete {
		c.plumb[r.PID] = c.in.Plumbing != nil && c.in.Plumbing(r.Path, r.Argv)
	}
	if c.in.Plumbing != nil && c.in.Plumbing(r.Path, r.Argv) {
		return
	}
	if r.Errno == "ENOENT" || r.Errno == "ENOTDIR" {
		return // a PATH lookup probing for the program
	}
	if len(p.Processes) >= maxProcsPerPhase {
		p.dropped++
		return
	}
	p.Processes = append(p.Processes, m.Process{
		Path:   l.Normalize(r.Path),
		Argv:   argv,
		Result: result(r),
		Shell:  shells[path.Base(r.Path)],
	})
}

func (c *classifier) table(pid int) map[int]*sockInfo {
	t := c.fds[pid]
	if t == nil {
		t = map[int]*sockInfo{}
		c.fds[pid] = t
	}
	return t
}

func fdArg(r trace.Record) int {
	if len(r.Args) == 0 {
		return -1
	}
	s := r.Args[0]
	if i := strings.IndexByte(s, '<'); i > 0 {
		s = s[:i]
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return -1
	}
	return n
}

func protoOf(sockType string) string {
	switch sockType {
	case "SOCK_STREAM", "tcp":
		return "tcp"
	case "SOCK_DGRAM", "udp":
		return "udp"
	case "SOCK_RAW", "SOCK_PACKET":
		return "raw"
	case "unix":
		return "unix"
	}
	return ""
}

func netResult(r trace.Record) string {
	switch {
	case r.Incomplete:
		return "pending"
	case !r.Failed():
		return m.ResultOK
	}
	switch r.Errno {
	case "EINPROGRESS", "EALREADY", "EAGAIN":
		return "in-progress"
	case "ECONNREFUSED":
		return "refused"
	case "ENETUNREACH", "EHOSTUNREACH", "EADDRNOTAVAIL", "ENETDOWN", "ETIMEDOUT":
		return "unreachable"
	case "ENOENT":
		return m.ResultMissing
	case "EACCES", "EPERM":
		return m.ResultDenied
	}
	return m.ResultError
}

func (c *classifier) net(p *phaseAcc, r trace.Record) {
	fd := fdArg(r)
	info := c.table(r.PID)[fd]
	if info == nil {
		info = &sockInfo{}
		if fd >= 0 {
			c.table(r.PID)[fd] = info
		}
	}
	if pr := protoOf(r.SockType); pr != "" {
		info.proto = pr
	}
	switch r.Op {
	case "connect":
		if r.Addr == nil {
			return
		}
		info.peer = r.Addr
		if r.Addr.Family == "AF_UNSPEC" {
			return // disconnect
		}
		c.addConn(p, r, info, "connect", r.Addr, netResult(r))
	case "bind":
		if r.Addr == nil {
			return
		}
		info.bound = r.Addr
		if r.Addr.Family == "AF_UNIX" || r.Addr.Port != 0 {
			c.addConn(p, r, info, "bind", r.Addr, netResult(r))
		}
	case "listen":
		addr := info.bound
		if addr == nil {
			addr = &trace.SockAddr{Family: info.family}
		}
		c.addConn(p, r, info, "listen", addr, netResult(r))
	case "send":
		dst := r.Addr
		if dst == nil {
			dst = info.peer
		}
		if dst == nil {
			return
		}
		proto := info.proto
		if proto == "" {
			proto = "udp"
		}
		data := r.Data
		if dst.Port == 53 && (proto == "udp" || proto == "tcp") {
			for _, d := range data {
				if proto == "tcp" && len(d) > 2 {
					d = d[2:]
				}
				for _, q := range decodeDNSQuestions(d) {
					p.DNS = append(p.DNS, m.DNSQuery{Name: q.name, Type: q.qtype, Server: dst.IP, Process: c.processOf(r.PID)})
					c.canaryScan(p, []byte(strings.ReplaceAll(q.name, ".", "")), "dns "+q.name)
					c.canaryScan(p, []byte(q.name), "dns "+q.name)
				}
			}
			return
		}
		if r.Addr != nil {
			c.addConn(p, r, info, "send", dst, netResult(r))
		}
		where := fmt.Sprintf("%s %s", proto, c.endpointName(dst))
		if proto == "udp" {
			c.noteUDP(r, where)
		}
		for _, d := range data {
			c.canaryScan(p, d, where)
		}
	}
}

func endpoint(a *trace.SockAddr) string {
	if a.Path != "" {
		return a.Path
	}
	if strings.Contains(a.IP, ":") {
		return fmt.Sprintf("[%s]:%d", a.IP, a.Port)
	}
	return fmt.Sprintf("%s:%d", a.IP, a.Port)
}

func (c *classifier) canaryScan(p *phaseAcc, data []byte, evidence string) {
	for _, h := range c.finder.Find(data) {
		p.Canaries = append(p.Canaries, m.CanaryHit{Canary: h.Canary, How: "sent", Evidence: evidence, Encoding: h.Encoding})
	}
}

var sensitiveSockets = []string{"/var/run/docker.sock", "/run/docker.sock", "/run/containerd", "/var/run/dbus",
	"/run/dbus", "/run/user", "/tmp/ssh-"}

func (c *classifier) endpointName(a *trace.SockAddr) string {
	if n := c.names[a.IP]; n != "" {
		return fmt.Sprintf("%s:%d", n, a.Port)
	}
	return endpoint(a)
}

func (c *classifier) addConn(p *phaseAcc, r trace.Record, info *sockInfo, op string, a *trace.SockAddr, res string) {
	conn := m.Connection{Op: op, Result: res, Proto: info.proto, Process: c.processOf(r.PID)}
	switch a.Family {
	case "AF_UNIX":
		conn.Proto = "unix"
		conn.Address = c.in.Layout.Normalize(a.Path)
		switch {
		case a.Path == "/var/run/nscd/socket" || a.Path == "/run/nscd/socket":
			conn.Category = "runtime"
		case matchAny(a.Path, sensitiveSockets) || strings.HasPrefix(a.Path, "/tmp/ssh-"):
			conn.Category = "sensitive"
		default:
			conn.Category = "ipc"
		}
	case "AF_INET", "AF_INET6":
		if conn.Proto == "" {
			conn.Proto = "tcp"
		}
		conn.Address, conn.Port = a.IP, a.Port
		conn.Name = c.names[a.IP]
		if isFake(a.IP) {
			conn.Address = "" // synthetic; depends on lookup order
		}
		switch {
		case a.Port == 53 && slices.Contains(c.in.Resolvers, a.IP):
			conn.Category = "dns"
		case strings.HasPrefix(a.IP, "127.") || a.IP == "::1" || a.IP == "0.0.0.0" || a.IP == "::":
			conn.Category = "loopback"
		default:
			conn.Category = "egress"
		}
		if op == "bind" || op == "listen" {
			conn.Category = "listener"
		}
	case "AF_NETLINK":
		return // interface enumeration by the runtime
	case "AF_PACKET":
		conn.Proto, conn.Address, conn.Category = "raw", "packet", "egress"
	default:
		if a.Family == "" {
			return
		}
		conn.Proto, conn.Address, conn.Category = "other", a.Family, "egress"
	}
	if conn.Proto == "tcp" && op == "connect" && len(c.in.Sink) > 0 && conn.Category != "loopback" {
		// Completed in mergeSink with what the sink saw of it.
		c.tcp = append(c.tcp, &traceConn{conn: conn, ip: a.IP, port: a.Port, t: r.Time, seq: r.Seq, phase: p})
		return
	}
	p.Network = append(p.Network, conn)
}

func (c *classifier) process(p *phaseAcc, r trace.Record) {
	switch r.Op {
	case "clone", "fork":
		if r.UntracedClone() {
			res := "allowed"
			if r.Failed() {
				res = "denied (" + r.Errno + ")"
			}
			p.Alerts = append(p.Alerts, m.Alert{Kind: m.AlertUntracedClone, Detail: "clone with CLONE_UNTRACED " + res})
		}
		if r.Child > 0 {
			if c.procs[r.PID] != "" {
				c.procs[r.Child] = c.procs[r.PID]
			}
			c.plumb[r.Child] = c.plumb[r.PID]
			parent := c.table(r.PID)
			if slices.Contains(r.CloneFlags, "CLONE_FILES") {
				c.fds[r.Child] = parent
			} else {
				cp := make(map[int]*sockInfo, len(parent))
				for k, v := range parent {
					cp[k] = v
				}
				c.fds[r.Child] = cp
			}
			c.pids[r.Child] = true
		}
	case "kill":
		if r.Signal == "0" || strings.HasSuffix(r.Signal, " 0") {
			return // existence probe
		}
		switch {
		case r.SignalPID == -1:
			p.Alerts = append(p.Alerts, m.Alert{Kind: m.AlertKill, Detail: "signal " + r.Signal + " to every process"})
		case r.SignalPID <= 0:
			// Own process group: ordinary job control.
		case !c.pids[r.SignalPID]:
			p.Alerts = append(p.Alerts, m.Alert{Kind: m.AlertKill, Detail: "signal " + r.Signal + " to a process outside the server's tree"})
		}
	}
}

func (c *classifier) alert(p *phaseAcc, r trace.Record) {
	kind := map[string]string{
		"io_uring_setup": m.AlertIOURing, "io_uring_enter": m.AlertIOURing, "io_uring_register": m.AlertIOURing,
		"ptrace": m.AlertPtrace, "memfd_create": m.AlertMemfd, "bpf": m.AlertBPF,
		"unshare": m.AlertNamespace, "setns": m.AlertNamespace,
		"process_vm_readv": m.AlertProcessVM, "process_vm_writev": m.AlertProcessVM, "mount": m.AlertMount,
	}[r.Op]
	if kind == "" {
		return
	}
	res := "succeeded"
	if r.Failed() {
		res = "denied (" + r.Errno + ")"
	} else if r.Incomplete {
		res = "in progress"
	}
	detail := r.Name + " " + res
	if r.Op == "ptrace" && len(r.Args) > 0 {
		detail = r.Name + "(" + r.Args[0] + ") " + res
	}
	if r.Op == "mount" {
		detail = r.Description + " " + res
	}
	p.Alerts = append(p.Alerts, m.Alert{Kind: kind, Detail: detail})
}

// witness adds canary reads that only the access-time check saw.
func (c *classifier) witness() {
	for _, w := range c.in.Witness {
		name := "file:" + w.Path
		if c.readCan[name] {
			continue
		}
		p := c.phaseAt(w.Time)
		p.Canaries = append(p.Canaries, m.CanaryHit{Canary: name, How: "file-read-witness",
			Evidence: w.Path + " read without a traced open (access time changed)"})
	}
}

func (p *phaseAcc) finish() m.Phase {
	out := p.Phase
	for fa := range p.files {
		out.Files = append(out.Files, fa)
	}
	for k, paths := range p.summary {
		k.Paths = len(paths)
		out.FileSummary = append(out.FileSummary, k)
	}
	if p.dropped > 0 {
		out.Alerts = append(out.Alerts, m.Alert{Kind: m.AlertTraceIncomplete,
			Detail: "more entries than the manifest lists per phase; the rest are in the raw trace"})
	}
	return out
}
