package classify

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// TestFloodsAreCounted: failed lookups that no rule judges are counted,
// not listed (no list overflow, the write after them is listed); a flood
// of entries that may carry findings still overflows, as an alert.
func TestFloodsAreCounted(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "11 10.%06d openat(AT_FDCWD, \"/tmp/probe-%c%c%c\", O_RDONLY) = -1 ENOENT (No such file or directory)\n", i, 'a'+i%26, 'a'+i/26%26, 'a'+i/676%26)
	}
	b.WriteString("11 11.000000 openat(AT_FDCWD, \"/home/dev/.bashrc\", O_WRONLY|O_APPEND) = 3</home/dev/.bashrc>\n")
	p := Classify(Input{Layout: layout, Events: parse(t, b.String()), Canaries: canary.Generate(nil)}).Phases[0]
	if len(p.Alerts) != 0 || len(p.Files) != 1 || p.Files[0].Path != "~/.bashrc" {
		t.Errorf("alerts %v, files %v", p.Alerts, p.Files)
	}
	counted := 0
	for _, c := range p.FileSummary {
		if c.Category == m.CatTemp && c.Result == m.ResultMissing {
			counted += c.Paths
		}
	}
	if counted != 5000 {
		t.Errorf("counted %d missing temp lookups, want 5000: %+v", counted, p.FileSummary)
	}

	b.Reset()
	for i := 0; i < maxNoteworthyPerPhase+10; i++ {
		fmt.Fprintf(&b, "11 10.%06d mkdir(\"/home/dev/workspace/d%d\", 0755) = 0\n", i%1000000, i)
	}
	p = Classify(Input{Layout: layout, Events: parse(t, b.String()), Canaries: canary.Generate(nil)}).Phases[0]
	if len(p.Alerts) != 1 || p.Alerts[0].Kind != m.AlertTraceIncomplete {
		t.Errorf("a flood of writes must overflow as an alert: %v", p.Alerts)
	}
}

// TestSeccompTrapIsAnAlert: the profile traps seccomp() with a listener
// flag; the SIGSYS strace prints becomes a seccomp_listener alert.
func TestSeccompTrapIsAnAlert(t *testing.T) {
	ev := parse(t, `29 10.000001 --- SIGSYS {si_signo=SIGSYS, si_code=SYS_SECCOMP, si_call_addr=0x43c979, si_syscall=__NR_seccomp, si_arch=AUDIT_ARCH_X86_64} ---
29 10.000002 +++ killed by SIGSYS +++
`)
	p := Classify(Input{Layout: layout, Events: ev, Canaries: canary.Generate(nil)}).Phases[0]
	if len(p.Alerts) != 1 || p.Alerts[0].Kind != m.AlertSeccompListener || !strings.Contains(p.Alerts[0].Detail, "SIGSYS") {
		t.Errorf("alerts %+v", p.Alerts)
	}
}
