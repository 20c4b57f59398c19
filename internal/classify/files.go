package classify

import (
	"path"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/trace"
)

// Directories whose existence probes are realpath() walking to something
// below them.
var realpathProbes = map[string]bool{"/": true, "/etc": true, "/usr": true, "/usr/share": true, "/usr/local": true,
	"/usr/lib": true, "/home": true, "/srv": true, "/opt": true, "/tmp": true, "/var": true, "/etc/localtime": true}

// Devices every program writes to.
var benignWrites = map[string]bool{"/dev/null": true, "/dev/tty": true, "/dev/stdout": true, "/dev/stderr": true}

// file records one file syscall: how the path was accessed, which file it
// really named once the links seen so far are followed, and whether that
// file is a canary.
func (c *classifier) file(p *phaseAcc, r trace.Record) {
	if r.Path == "" || !strings.HasPrefix(r.Path, "/") {
		return
	}
	if r.Op == "link" {
		// Record the new name, pointing at the existing file.
		r.Path, r.Path2 = r.Path2, r.Path
	}
	res := result(r)
	access, target := fileAccess(r)
	if res == m.ResultOK {
		c.alias(r)
	}
	real := c.realPath(r)
	l := c.in.Layout
	if l.instrument(r.Path) && l.instrument(real) && (r.Path2 == "" || l.instrument(r.Path2)) {
		return // the runtime writing mcp-audit's instrument (V8 coverage); a link or rename out of it is recorded
	}
	c.installFile(p, r)
	if res == m.ResultOK {
		c.seedCall(p, r, real)
	}
	canaryName := c.canaryAt[real]
	fa := m.FileAccess{Path: l.Normalize(r.Path), Access: access, Category: l.fileCategory(real, canaryName != "", access),
		Result: res}
	if target != "" {
		fa.Target = l.Normalize(target)
	} else if real != r.Path {
		fa.Target = l.Normalize(real)
	}
	if c.gitOwn(r.PID, fa) {
		fa.Category = m.CatWorkspace
	}
	c.gitWrites(r.PID, fa)
	if r.Op == "utime" && (fa.Category == m.CatCanary || fa.Category == m.CatSensitive) {
		p.Alerts = append(p.Alerts, m.Alert{Kind: m.AlertTimestamps, Detail: "timestamps changed on " + l.Normalize(real)})
	}
	if r.NoAtime && (fa.Category == m.CatCanary || fa.Category == m.CatSensitive) {
		p.Alerts = append(p.Alerts, m.Alert{Kind: m.AlertNoAtime, Detail: "O_NOATIME open of " + l.Normalize(real) + " (" + res + ")"})
	}
	if canaryName != "" && res == m.ResultOK && !c.gitWorkTree(r.PID, fa) {
		c.fileCanary(p, canaryName, fa)
	}
	if c.browserOwn(r.PID, real) {
		p.browserCount(fa)
		return
	}
	p.addFile(fa)
	if r.Op == "rename" {
		c.renameDest(p, r, res)
	}
}

// renameDest records the destination of a rename as a create of that path,
// judged by where it lands: a file written in the workspace and renamed
// onto ~/.bashrc or an AI client's settings changes those files as surely
// as a write (links and symlinks are already recorded by their new name).
func (c *classifier) renameDest(p *phaseAcc, r trace.Record, res string) {
	if !strings.HasPrefix(r.Path2, "/") {
		return
	}
	l := c.in.Layout
	real := path.Join(c.resolve(path.Dir(r.Path2)), path.Base(r.Path2))
	canaryName := c.canaryAt[real]
	fa := m.FileAccess{Path: l.Normalize(r.Path2), Access: m.AccessCreate, Target: l.Normalize(r.Path),
		Category: l.fileCategory(real, canaryName != "", m.AccessCreate), Result: res}
	if real != r.Path2 {
		fa.Target = l.Normalize(real)
	}
	if c.gitOwn(r.PID, fa) {
		fa.Category = m.CatWorkspace
	}
	c.gitWrites(r.PID, fa)
	if canaryName != "" && res == m.ResultOK && !c.gitWorkTree(r.PID, fa) {
		c.fileCanary(p, canaryName, fa)
	}
	p.addFile(fa)
}

// fileAccess names how a call used its path and, for calls that make a
// second name (rename, link, symlink), the other path. For link, r has
// already been turned to record the new name.
func fileAccess(r trace.Record) (access, target string) {
	switch r.Op {
	case "open":
		if r.Write || r.Create || r.Trunc {
			return m.AccessWrite, ""
		}
	case "access", "readlink":
		return m.AccessStat, ""
	case "unlink", "rmdir":
		return m.AccessDelete, ""
	case "mkdir":
		return m.AccessDirWrite, ""
	case "rename":
		return m.AccessRename, r.Path2
	case "link":
		return m.AccessCreate, r.Path2
	case "symlink":
		return m.AccessSymlink, r.Path2
	case "chmod", "truncate", "utime":
		return m.AccessWrite, ""
	case "chdir":
		return m.AccessChdir, ""
	}
	return m.AccessRead, ""
}

// alias remembers what a new name stands for after a successful rename,
// link or symlink, so later accesses through it are recognized.
func (c *classifier) alias(r trace.Record) {
	switch r.Op {
	case "rename":
		c.aliases[r.Path2] = c.resolve(r.Path)
	case "link":
		c.aliases[r.Path] = c.resolve(r.Path2)
	case "symlink":
		t := r.Path2
		if !strings.HasPrefix(t, "/") {
			t = path.Join(path.Dir(r.Path), t)
		}
		c.aliases[r.Path] = c.resolve(t)
	}
}

// realPath is the file a call acted on. open, truncate, chmod and utime
// follow symlinks; unlink, rename, mkdir, link and symlink act on the last
// path component itself.
func (c *classifier) realPath(r trace.Record) string {
	switch r.Op {
	case "open":
		if rp := r.RetPath; rp != "" && strings.HasPrefix(rp, "/") && !strings.Contains(rp, "<") &&
			(!isMagic(r.Path) || !isMagic(rp)) {
			// strace resolved the returned fd: the file really opened,
			// after every symlink, including ones mcp-audit did not see
			// being made (shipped in a package, made before tracing) and
			// /proc aliases (/proc/self/fd/N/id_rsa). A /proc or /dev name
			// that stays one (/proc/self/status -> /proc/42/status) keeps
			// the name the caller used.
			return path.Clean(r.RetPath)
		}
		return c.resolve(r.Path)
	case "truncate", "chmod", "utime", "chdir", "access":
		return c.resolve(r.Path)
	}
	return path.Join(c.resolve(path.Dir(r.Path)), path.Base(r.Path))
}

// isMagic reports whether a path lies in /proc or /dev, whose names are
// judged as the caller wrote them.
func isMagic(p string) bool {
	return strings.HasPrefix(p, "/proc/") || strings.HasPrefix(p, "/dev/")
}

// resolve follows known symlinks, renames and hard links (up to 8 hops) so
// that a read of /tmp/x -> ~/.aws/credentials is recognized.
func (c *classifier) resolve(p string) string {
	if len(c.aliases) == 0 {
		return p
	}
	p = path.Clean(p)
	for range 8 {
		q, ok := c.aliasedAncestor(p)
		if !ok {
			break
		}
		p = path.Join(c.aliases[q], p[len(q):])
	}
	return p
}

// aliasedAncestor finds the longest ancestor of the clean path p (p
// included) that is an alias. It walks back over the separators once:
// linear in the path's length, which the program under audit chooses.
func (c *classifier) aliasedAncestor(p string) (string, bool) {
	for q := p; q != "/" && q != "." && q != ""; {
		if _, ok := c.aliases[q]; ok {
			return q, true
		}
		i := strings.LastIndexByte(q, '/')
		if i <= 0 {
			break
		}
		q = q[:i]
	}
	return "", false
}

// fileCategory puts the real file of an access in a category.
func (l Layout) fileCategory(real string, canary bool, access string) string {
	norm := l.Normalize(real)
	if access == m.AccessStat && realpathProbes[norm] {
		return m.CatRuntime // realpath() walking the ancestors of a path
	}
	return l.Category(norm, canary, access != m.AccessRead && access != m.AccessStat)
}

// addFile lists an access in its phase. Successful reads and probes of the
// server's own code and of the runtime are expected and numerous: they are
// counted instead of listed.
func (p *phaseAcc) addFile(fa m.FileAccess) {
	cat, access := fa.Category, fa.Access
	if (cat == m.CatOwnPackage || cat == m.CatRuntime) && (access == m.AccessRead || access == m.AccessStat || access == m.AccessChdir) ||
		access == m.AccessWrite && benignWrites[fa.Path] || noise(fa) {
		p.count(m.FileCount{Category: cat, Access: access, Result: fa.Result}, fa.Path)
		return
	}
	if len(p.files) >= maxFilesPerPhase && !p.files[fa] {
		switch {
		case !mayMatter(fa):
			// No rule judges it: counted past the cap, never dropped.
			p.count(m.FileCount{Category: cat, Access: access, Result: fa.Result}, fa.Path)
			return
		case len(p.files) >= maxNoteworthyPerPhase:
			p.dropped++ // an alert, and so a high finding: a flood cannot hide what follows it
			return
		}
	}
	p.files[fa] = true
}

// maxCountedPaths bounds the distinct paths remembered per summary row;
// past it every access counts as a new path.
const maxCountedPaths = 100_000

// count adds a path to a summary row instead of listing it.
func (p *phaseAcc) count(k m.FileCount, path string) {
	if p.summary[k] == nil {
		p.summary[k] = map[string]bool{}
	}
	if len(p.summary[k]) < maxCountedPaths {
		p.summary[k][path] = true
		return
	}
	p.overflow[k]++
}

// noise reports a failed lookup that no rule judges: a missing, denied or
// failed read or stat outside the sensitive categories. Such lookups are
// counted, not listed, so a flood of them (a few thousand failed opens of
// random names) cannot fill the per-phase list and push what matters out.
func noise(fa m.FileAccess) bool {
	switch fa.Access {
	case m.AccessRead, m.AccessStat, m.AccessChdir:
	default:
		return false
	}
	switch fa.Category {
	case m.CatCanary, m.CatShellRC, m.CatAIConfig, m.CatSensitive, m.CatAntiAnalysis:
		return false
	}
	return fa.Result != m.ResultOK
}

// mayMatter reports whether an access can carry a finding: those are kept
// past the ordinary cap (up to maxNoteworthyPerPhase), so failed probes of
// random names cannot push a persistence write out of the manifest.
func mayMatter(fa m.FileAccess) bool {
	switch fa.Category {
	case m.CatCanary, m.CatShellRC, m.CatAIConfig, m.CatSensitive, m.CatAntiAnalysis:
		return true
	}
	switch fa.Access {
	case m.AccessRead, m.AccessStat, m.AccessChdir:
		return fa.Result == m.ResultOK && (fa.Category == m.CatSystem || fa.Category == m.CatHome)
	}
	return true // writes, deletes, renames, links, execs
}
