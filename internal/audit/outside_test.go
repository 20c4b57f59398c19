package audit

import (
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/classify"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

// TestOutsideOf: the segments' parsed watcher and home files become one
// outside view, bounded.
func TestOutsideOf(t *testing.T) {
	t.Parallel()
	l := classify.Layout{Home: "/home/dev", Workspace: "/home/dev/project"}
	seg := func(watch, status, home []string, opened ...string) *segment {
		return &segment{binOpened: opened, art: &sandbox.Artifacts{Watch: sandbox.ParseWatch(watch),
			Status: sandbox.ParseStatus(status), HomeChanged: sandbox.ParseHomeChanges(home)}}
	}
	v := outsideOf([]*segment{
		seg([]string{"exec 1 /usr/bin/git /bin/git"}, nil, []string{"40 /home/dev/.bashrc"}, "/usr/bin/id"),
		seg([]string{"lost"}, []string{"watch-not-ready"}, nil),
		{oddExec: true},
	}, l)
	if !v.Lost || !v.WatchLate || !v.OddExec || !v.Opened["/usr/bin/id"] || v.Home["~/.bashrc"] != "40" ||
		len(v.Execs) != 1 || v.Execs[0][0] != "/usr/bin/git" {
		t.Errorf("outside %+v", v)
	}
}

func TestWatchReads(t *testing.T) {
	t.Parallel()
	l := classify.Layout{Home: "/home/dev", Workspace: "/home/dev/project"}
	atime := []classify.WitnessRead{{Path: "~/.ssh/id_rsa"}}
	reads := sandbox.ParseWatch([]string{"read 100.5 /home/dev/.aws/credentials", "read 101 /home/dev/.ssh/id_rsa", "read x /y", "exec 1 /usr/bin/id"}).Reads
	got := watchReads(l, reads, atime)
	if len(got) != 1 || got[0].Path != "~/.aws/credentials" || got[0].Evidence == "" {
		t.Errorf("watchReads = %+v", got)
	}
}
