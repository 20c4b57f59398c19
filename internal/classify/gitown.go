package classify

import (
	"bytes"
	"path"
	"regexp"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/trace"
)

// A repository's .git/config and .git/hooks are persistence places (the
// table): a config can name programs git runs (core.fsmonitor,
// core.sshCommand, a filter), a hook runs on commit. But git itself writes
// both in every repository it makes or changes: init and clone write the
// config and create the hooks directory (with inert samples), a fetch or
// a checkout rewrites the config's remote and branch sections. Those
// writes are the command's effect, not a program planted for later.
//
// So a process that runs the image's git (root's program, which the
// server cannot change) for a command that sets no configuration is
// git's own here, judged by what it leaves rather than by who it is,
// since git also takes configuration and templates from environment
// variables no trace shows (GIT_CONFIG_COUNT, GIT_TEMPLATE_DIR):
//
//   - its write of a repository's config (in the workspace, not through
//     a link out of it) is the workspace's when the config it leaves,
//     read back after the run, names no program for git to run
//     (gitConfigRuns); unread, or naming one, it stays persistence;
//   - its creation of the hooks directory is the workspace's (a hook in
//     it is judged as always), and so are its deletions inside .git (a
//     failed clone removing what it made adds nothing that runs);
//   - its rewrite of a decoy in the work tree is no canary hit when the
//     decoy ends as it was planted (a reset or a stash put the tracked
//     .env back); changed, it is a write of the decoy as always;
//   - a workspace decoy's value in a file only git wrote inside .git is
//     the object store keeping the work tree; any other canary there (an
//     environment variable, a home file) is a copy made for later.
//
// Its helpers under /usr/lib/git-core are git's only when they are the
// git binary for a command that sets no configuration: the scripts there
// (git-filter-branch) evaluate what they are given.
var imageGit = map[string]bool{"/usr/bin/git": true, "/usr/lib/git-core/git": true}

// gitExec follows a program start: the image's git for a command that
// sets no configuration, or something else.
func (c *classifier) gitExec(r trace.Record) {
	if r.Failed() || r.Incomplete {
		return
	}
	c.git[r.PID] = imageGit[r.Path] && !setsConfig(r.Argv)
}

// setsConfig: git's arguments set configuration that may run something
// (git config, git -c with a key not known to be inert, --config-env,
// --template, --exec-path) or name no command. A -c that only sets a
// name, a switch or a format (-c user.name=x, -c commit.gpgsign=false,
// -c core.quotepath=off: servers commit for a user with no identity) is
// the command as usual.
func setsConfig(argv []string) bool {
	if len(argv) < 2 {
		return true
	}
	for i, a := range argv[1:] {
		switch {
		case a == "-c":
			if i+2 >= len(argv) || configRuns(argv[i+2]) {
				return true
			}
		case strings.HasPrefix(a, "-c") && len(a) > 2 && !strings.HasPrefix(a, "--"):
			if configRuns(a[2:]) {
				return true
			}
		case a == "config", a == "--config", strings.HasPrefix(a, "--config="), strings.HasPrefix(a, "--template"),
			a == "--config-env", strings.HasPrefix(a, "--config-env="), strings.HasPrefix(a, "--exec-path"):
			return true
		}
	}
	return false
}

// configRuns: a -c assignment (key=value, or key alone for true) whose key
// is not one of those that only name, switch or format (reGitInert): an
// allowlist, since keys beyond reGitRuns also make git load a file or
// run a program (man.*.cmd, browser.*, commit.template,
// extensions.worktreeconfig, core.attributesfile).
func configRuns(assign string) bool {
	key, _, _ := strings.Cut(assign, "=")
	return !reGitInert.MatchString(strings.ToLower(strings.TrimSpace(key)))
}

// reGitInert are the -c keys that set a name, a switch or a format.
var reGitInert = regexp.MustCompile(`^(user\.(name|email)|author\.(name|email)|committer\.(name|email)|commit\.gpgsign|tag\.gpgsign|` +
	`core\.(quotepath|autocrlf|safecrlf|filemode|precomposeunicode)|color\.[a-z.]+|advice\.[a-z]+|init\.defaultbranch|` +
	`i18n\.(commitencoding|logoutputencoding)|log\.(showsignature|date|decorate)|gc\.auto|maintenance\.auto|pull\.rebase|push\.default)$`)

// gitOwn reports whether a file access is git's own bookkeeping of a
// repository (see imageGit).
func (c *classifier) gitOwn(pid int, fa m.FileAccess) bool {
	if !c.git[pid] || fa.Category != m.CatShellRC || !inWorkspace(fa.Path) || fa.Target != "" && !inWorkspace(fa.Target) {
		return false
	}
	p := strings.TrimSuffix(fa.Path, ".lock")
	dir, base := path.Split(p)
	switch {
	case base == "config" && strings.HasSuffix(dir, "/.git/"):
		return c.gitConfigSafe[p]
	case base == "hooks" && strings.HasSuffix(dir, "/.git/") && fa.Access == m.AccessDirWrite:
		return true
	case fa.Access == m.AccessDelete && strings.Contains(p, "/.git/"):
		return true
	}
	return false
}

func inWorkspace(norm string) bool { return strings.HasPrefix(norm, "<workspace>/") }

// reGitRuns are the configuration keys whose value git runs, loads or
// sends the user's credentials through: in a section (core, alias, …) or
// a subsection ([filter "x"] clean).
var reGitRuns = regexp.MustCompile(`^(core\.(fsmonitor|hookspath|sshcommand|pager|editor|askpass|gitproxy|alternaterefscommand|worktree)|` +
	`sequence\.editor|diff\.(external|.*\.(command|textconv))|merge\..*\.driver|filter\..*|credential\..*|alias\..*|include\..*|includeif\..*|` +
	`gpg\..*|pager\..*|interactive\.difffilter|uploadpack\..*|remote\..*\.(uploadpack|receivepack|vcs)|url\..*|http\..*|protocol\..*|` +
	`receive\..*|submodule\..*\.update|difftool\..*|mergetool\..*|init\.templatedir|safe\..*)$`)

// gitConfigRuns reports whether a repository config's text names a key
// whose value git runs or loads (reGitRuns). A line it cannot read counts
// as one that does.
func gitConfigRuns(text []byte) bool {
	section := ""
	for _, line := range bytes.Split(text, []byte("\n")) {
		l := strings.TrimSpace(string(line))
		if l == "" || l[0] == '#' || l[0] == ';' {
			continue
		}
		if l[0] == '[' {
			end := strings.IndexByte(l, ']')
			if end < 0 {
				return true
			}
			name, sub, _ := strings.Cut(strings.TrimSpace(l[1:end]), " ")
			section = strings.ToLower(name)
			if sub = strings.Trim(strings.TrimSpace(sub), `"`); sub != "" {
				section += "." + strings.ToLower(sub)
			}
			if l = strings.TrimSpace(l[end+1:]); l == "" {
				continue
			}
		}
		key, _, _ := strings.Cut(l, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if section == "" || key == "" || reGitRuns.MatchString(section+"."+key) {
			return true
		}
	}
	return false
}

// gitWrites keeps, for each file written in a repository's .git, whether
// only git's own processes wrote it. A write through another name (a symlink to the file, or a hard link
// made to it) counts for the file it reached too: a server must not write
// through ~/workspace/s into a log only git wrote.
func (c *classifier) gitWrites(pid int, fa m.FileAccess) {
	if fa.Result != m.ResultOK || fa.Access != m.AccessWrite && fa.Access != m.AccessCreate {
		return
	}
	for _, p := range []string{fa.Path, fa.Target} {
		if strings.Contains(p, "/.git/") {
			own, seen := c.gitWrote[p]
			c.gitWrote[p] = c.git[pid] && (own || !seen)
		}
	}
}

// gitWorkTree: git's own process changing a decoy in the workspace, which
// ends as it was planted (see imageGit). Reads stay hits (git reading
// ~/.netrc for a clone's host is a credential lookup).
func (c *classifier) gitWorkTree(pid int, fa m.FileAccess) bool {
	return c.git[pid] && fa.Access != m.AccessRead && inWorkspace(fa.Path) && c.decoyIntact[fa.Path]
}

// gitStore: a workspace decoy's value in a file only git's own processes
// wrote inside a .git directory (see imageGit).
func (c *classifier) gitStore(norm, canary string) bool {
	return c.gitWrote[norm] && strings.HasPrefix(canary, "file:<workspace>/")
}

// readBack is what Output.ReadBack says of the files read back.
func (c *classifier) readBack() ReadBack {
	rb := ReadBack{Kept: map[string]bool{}, Phase: map[string]string{}}
	for p, own := range c.gitWrote {
		if own && inWorkspace(p) {
			rb.Kept[p] = true
		}
	}
	for p, intact := range c.decoyIntact {
		if intact {
			rb.Kept[p] = true
		}
	}
	for _, w := range c.in.Written {
		norm := c.in.Layout.Normalize(w.Path)
		if p := c.phaseWriting(norm); p != nil {
			rb.Phase[norm] = p.Name
		}
	}
	return rb
}

// gitReadBack notes, from the files read back after the run, which
// repository configs name no program (gitConfigRuns) and which workspace
// decoys end as planted.
func (c *classifier) gitReadBack() {
	planted := map[string][]byte{}
	if c.in.Canaries != nil {
		for _, f := range c.in.Canaries.Files {
			planted[f.Path] = f.Content
		}
	}
	for _, w := range c.in.Written {
		norm := c.in.Layout.Normalize(w.Path)
		if strings.HasSuffix(norm, "/.git/config") && inWorkspace(norm) {
			c.gitConfigSafe[norm] = !gitConfigRuns(w.Data)
		}
		if p, ok := planted[norm]; ok && bytes.Equal(p, w.Data) {
			c.decoyIntact[norm] = true
		}
	}
}
