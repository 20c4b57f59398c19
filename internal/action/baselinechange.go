package action

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/baseline"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// baselineChanges lists the baselines a pull request adds or rewrites.
// One loosens the policy when it records behavior that the base's newest
// baseline of the package (in baseDir, extracted from the base commit)
// does not have, or when it is the package's first: the check would
// otherwise compare the new version with itself and see nothing new.
func baselineChanges(ws, base string, head *config.Config, baseDir string) []policyChange {
	var changes []policyChange
	for _, b := range baselinesAtHead(ws, base, head) {
		c := policyChange{Setting: "baseline", To: b.file, Loosens: true}
		if b.man == nil {
			c.From = "(not a manifest)"
			changes = append(changes, c)
			continue
		}
		if s := head.ServerForPackage(b.man.Target.Name); s != nil {
			c.Server, c.Line = s.Name, s.Line
		}
		c.From, c.Loosens = newBehavior(baseDir, b.man)
		changes = append(changes, c)
	}
	return changes
}

// changedBaseline is a baseline file the pull request adds or rewrites,
// as of HEAD; man is nil when the file is not a manifest.
type changedBaseline struct {
	file string
	man  *m.Manifest
}

// baselinesAtHead lists the baseline files added or modified since base,
// each read at HEAD: the one walk the loosening check and the
// accepted-risk check share.
func baselinesAtHead(ws, base string, head *config.Config) []changedBaseline {
	headRel, err := filepath.Rel(ws, head.BaselineDir())
	if err != nil {
		return nil
	}
	out, err := git(ws, "diff", "--name-only", "--diff-filter=AM", base, "HEAD", "--", filepath.ToSlash(headRel))
	if err != nil {
		return nil
	}
	var bs []changedBaseline
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !strings.HasSuffix(f, ".json") {
			continue
		}
		data, err := git(ws, "show", "HEAD:"+f)
		if err != nil {
			continue
		}
		b := changedBaseline{file: f}
		if man, err := m.Decode(data); err == nil {
			b.man = man
		}
		bs = append(bs, b)
	}
	return bs
}

// newBehavior compares a baseline with the base's newest of its package:
// what it adds, and whether that is anything.
func newBehavior(baseDir string, man *m.Manifest) (string, bool) {
	v, err := baseline.Newest(baseDir, man.Target.Ecosystem, man.Target.Name)
	if err != nil || v == "" {
		return "(no baseline of " + man.Target.Name + ")", true
	}
	old, err := baseline.Load(baseDir, man.Target.Ecosystem, man.Target.Name, v)
	if err != nil {
		return "(unreadable baseline " + v + ")", true
	}
	added := 0
	for _, ch := range diff.Compare(old, man, policy.Policy{}).Changes {
		if ch.Op != diff.Removed {
			added++
		}
	}
	if added == 0 {
		return v + ", the same behavior", false
	}
	return fmt.Sprintf("%s, %d behavior change(s) since it", v, added), true
}
