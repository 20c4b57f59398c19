package classify

import (
	"path"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// PersistRow is one place where a write changes what another program
// will run or load later: the user's shell, git, a package manager, an
// interpreter, the session manager or an AI client. A write there is
// persistence wherever it lies, home or workspace; the reason says which
// program picks it up.
type PersistRow struct {
	// Pattern is a normalized path ("~", "<workspace>", absolute) naming
	// the file or the top of a subtree. A segment may be a path.Match
	// pattern; one "**" segment stands for any number of segments.
	Pattern string
	// Category is m.CatShellRC (persistence) or m.CatAIConfig.
	Category string
	// Reads puts reads in the category too: reading an AI client's
	// settings exposes its keys; reading a shell's startup file is a
	// low finding. Other rows judge only writes, so a project's
	// Makefile or CLAUDE.md read by a file server stays a workspace read.
	Reads bool
	// Why names the program that runs or loads what is written there.
	Why string
}

const (
	shell = m.CatShellRC
	aiCfg = m.CatAIConfig
)

// Persistence is the one table of persistence locations; docs/policy.md
// carries the same table (TestPersistenceTableDocumented keeps them equal).
var Persistence = join(shellRows, vcsRows, packageRows, startupRows, autostartRows, aiRows)

var shellRows = []PersistRow{
	{"~/.bashrc", shell, true, "bash: every interactive shell"},
	{"~/.bash_profile", shell, true, "bash: login shells"},
	{"~/.bash_login", shell, true, "bash: login shells"},
	{"~/.bash_logout", shell, true, "bash: every login shell's exit"},
	{"~/.bash_aliases", shell, true, "bash: sourced by the distributions' default ~/.bashrc"},
	{"~/.profile", shell, true, "sh, dash, bash: login shells and desktop sessions"},
	{"~/.zshrc", shell, true, "zsh: every interactive shell"},
	{"~/.zshenv", shell, true, "zsh: every zsh, scripts included"},
	{"~/.zprofile", shell, true, "zsh: login shells"},
	{"~/.zlogin", shell, true, "zsh: login shells"},
	{"~/.zlogout", shell, true, "zsh: every login shell's exit"},
	{"~/.config/zsh", shell, true, "zsh: the usual ZDOTDIR"},
	{"~/.oh-my-zsh/custom", shell, true, "zsh: oh-my-zsh loads every *.zsh here"},
	{"~/.config/fish", shell, true, "fish: config.fish, conf.d/*.fish and autoloaded functions"},
	{"~/.kshrc", shell, true, "ksh: ENV file of interactive shells"},
	{"~/.mkshrc", shell, true, "mksh: every interactive shell"},
	{"~/.tcshrc", shell, true, "tcsh: every shell"},
	{"~/.cshrc", shell, true, "csh, tcsh: every shell"},
	{"~/.login", shell, true, "csh, tcsh: login shells"},
	{"~/.logout", shell, true, "csh, tcsh: every login shell's exit"},
	{"~/.xonshrc", shell, true, "xonsh: every shell"},
	{"~/.config/nushell", shell, true, "nushell: config.nu and env.nu"},
	{"~/.config/powershell", shell, true, "PowerShell: profile scripts"},
	{"~/.inputrc", shell, true, "readline: a macro bound to Enter types commands into every bash"},
	{"~/.xprofile", shell, true, "X session start"},
	{"~/.xinitrc", shell, true, "startx"},
	{"~/.xsession", shell, true, "X session start"},
	{"~/.xsessionrc", shell, true, "X session start (Debian)"},
	{"~/.pam_environment", shell, true, "pam_env: environment of every login (NODE_OPTIONS, LD_PRELOAD, PATH)"},
	{"~/.config/environment.d", shell, true, "systemd: environment of every user service and session"},
	{"~/.ssh/authorized_keys", shell, true, "sshd: who may log in"},
	{"~/.ssh/rc", shell, true, "sshd: runs at every ssh login"},
	{"~/.ssh/config", shell, false, "ssh: ProxyCommand and LocalCommand run programs"},
	{"~/.vimrc", shell, true, "vim: runs at start (:! and autocommands)"},
	{"~/.vim/plugin", shell, false, "vim: plugins load at start"},
	{"~/.config/nvim", shell, false, "neovim: init.lua and plugins"},
	{"~/.emacs", shell, false, "emacs: init file"},
	{"~/.emacs.d", shell, false, "emacs: init.el and packages"},
	{"~/.tmux.conf", shell, false, "tmux: run-shell at start"},
	{"~/.config/tmux", shell, false, "tmux: run-shell at start"},
	{"/etc/profile", shell, true, "every login shell"},
	{"/etc/profile.d", shell, true, "every login shell"},
	{"/etc/bash.bashrc", shell, true, "every bash"},
	{"/etc/zsh", shell, true, "every zsh"},
	{"/etc/environment", shell, false, "pam_env: every login"},
	{"/etc/ld.so.preload", shell, true, "the loader: a library in every program"},
	{"/etc/ld.so.conf", shell, false, "the loader: where libraries come from"},
	{"/etc/ld.so.conf.d", shell, false, "the loader: where libraries come from"},
}

var vcsRows = []PersistRow{
	{"~/.gitconfig", shell, true, "git: core.hooksPath, core.fsmonitor, aliases and filters run programs"},
	{"~/.config/git/config", shell, false, "git: the XDG global config, as ~/.gitconfig"},
	{"~/.config/git/attributes", shell, false, "git: selects the filter drivers that run on checkout"},
	{"**/.git/config", shell, false, "git: the repository's config, as ~/.gitconfig"},
	{"**/.git/hooks", shell, false, "git: hooks run on commit, checkout, merge and push"},
	{"<workspace>/**/.githooks", shell, false, "git: the usual core.hooksPath of a project"},
	{"<workspace>/**/.husky", shell, false, "husky: git hooks installed by npm install"},
	{"<workspace>/.pre-commit-config.yaml", shell, false, "pre-commit: the hooks it installs and runs"},
	{"<workspace>/lefthook.yml", shell, false, "lefthook: git hooks"},
	{"<workspace>/.github/workflows", shell, false, "GitHub Actions: runs with the repository's secrets on the next push"},
	{"<workspace>/.gitlab-ci.yml", shell, false, "GitLab CI: runs with the project's secrets on the next push"},
	{"<workspace>/**/.envrc", shell, false, "direnv: runs when a shell enters the directory"},
	{"~/.config/direnv", shell, false, "direnv: direnvrc runs on every load; its whitelist skips `direnv allow`"},
	{"<workspace>/**/.mise.toml", shell, false, "mise: env, hooks and tasks of the directory"},
	{"<workspace>/**/mise.toml", shell, false, "mise: env, hooks and tasks of the directory"},
	{"~/.config/mise", shell, false, "mise: global env, hooks and tasks"},
	{"<workspace>/.devcontainer", shell, false, "dev containers: postCreateCommand runs when the folder is opened"},
}

var packageRows = []PersistRow{
	{"~/.npmrc", shell, false, "npm: registry, script-shell and node-options of every npm and npx run"},
	{"<workspace>/**/.npmrc", shell, false, "npm: the project's registry, script-shell and node-options"},
	{"~/.yarnrc", shell, false, "yarn 1: registry and yarn-path (a script yarn runs)"},
	{"~/.yarnrc.yml", shell, false, "yarn 2+: yarnPath and plugins run as yarn"},
	{"<workspace>/**/.yarnrc", shell, false, "yarn 1: the project's registry and yarn-path"},
	{"<workspace>/**/.yarnrc.yml", shell, false, "yarn 2+: the project's yarnPath and plugins"},
	{"~/.bunfig.toml", shell, false, "bun: preload scripts and registry"},
	{"<workspace>/**/bunfig.toml", shell, false, "bun: the project's preload scripts"},
	{"<workspace>/**/package.json", shell, false, "npm, yarn, pnpm: scripts run by install, test and start"},
	{"~/.config/pip", shell, false, "pip: index-url decides where every package comes from"},
	{"~/.pip", shell, false, "pip: the legacy config directory"},
	{"**/pip.conf", shell, false, "pip: index-url of that environment"},
	{"~/.config/uv", shell, false, "uv: index-url of every uv and uvx run"},
	{"<workspace>/**/uv.toml", shell, false, "uv: the project's index"},
	{"<workspace>/**/pyproject.toml", shell, false, "pip, uv, poetry: build backend and scripts"},
	{"<workspace>/**/setup.py", shell, false, "pip: runs on install"},
	{"<workspace>/**/conftest.py", shell, false, "pytest: loaded by every test run"},
	{"<workspace>/**/Makefile", shell, false, "make: the project's commands"},
	{"<workspace>/**/makefile", shell, false, "make: the project's commands"},
	{"<workspace>/**/GNUmakefile", shell, false, "make: the project's commands"},
	{"<workspace>/**/justfile", shell, false, "just: the project's commands"},
	{"~/.cargo/config.toml", shell, false, "cargo: runner and rustc-wrapper run programs"},
	{"~/.cargo/config", shell, false, "cargo: runner and rustc-wrapper run programs"},
	{"<workspace>/**/.cargo/config.toml", shell, false, "cargo: the project's runner and rustc-wrapper"},
	{"~/.npm/_npx", shell, false, "npx: a package found here is run without a download"},
	{"~/.npm/_cacache", shell, false, "npm, npx: installs trust the cache's index"},
	{"~/.cache/uv", shell, false, "uv, uvx: a tool found here is run without a download"},
	{"~/.cache/pip", shell, false, "pip: wheels found here are installed without a download"},
	{"~/.cache/node/corepack", shell, false, "corepack: runs the yarn and pnpm it finds here"},
	{"~/.cache/yarn", shell, false, "yarn: installs trust the cache"},
	{"~/.yarn/berry/cache", shell, false, "yarn 2+: installs trust the cache"},
	{"~/.local/share/pnpm", shell, false, "pnpm: its store and global bin"},
	{"~/.bun", shell, false, "bun: its install cache and global bin"},
}

var startupRows = []PersistRow{
	{"~/.local/bin", shell, false, "on PATH (Debian's ~/.profile adds it when it exists)"},
	{"~/bin", shell, false, "on PATH (~/.profile adds it when it exists)"},
	{"~/.npm-global/bin", shell, false, "on PATH: npm's usual user prefix"},
	{"~/.cargo/bin", shell, false, "on PATH: rustup and cargo install"},
	{"~/go/bin", shell, false, "on PATH: go install"},
	{"~/.deno/bin", shell, false, "on PATH: deno install"},
	{"~/.volta/bin", shell, false, "on PATH: volta's shims"},
	{"~/.pyenv/shims", shell, false, "on PATH: pyenv's shims"},
	{"~/.nvm/versions", shell, false, "on PATH: nvm's node and global packages"},
	{"/usr/local/bin", shell, false, "on every PATH"},
	{"/usr/local/sbin", shell, false, "on every PATH"},
	{"~/.node_modules", shell, false, "node: require() falls back to this folder"},
	{"~/.node_libraries", shell, false, "node: require() falls back to this folder"},
	{"**/site-packages/*.pth", shell, false, "python: import lines in .pth files run at every start"},
	{"**/dist-packages/*.pth", shell, false, "python: import lines in .pth files run at every start"},
	{"**/sitecustomize.py", shell, false, "python: imported at every start when on the path"},
	{"**/usercustomize.py", shell, false, "python: imported at every start when on the path"},
}

var autostartRows = []PersistRow{
	{"~/.config/autostart", shell, true, "desktop session: starts every *.desktop here"},
	{"/etc/xdg/autostart", shell, false, "desktop session: starts every *.desktop here"},
	{"~/.config/systemd", shell, true, "systemd: user units and timers"},
	{"~/.local/share/systemd", shell, true, "systemd: user units"},
	{"~/.config/upstart", shell, false, "upstart: user jobs"},
	{"~/Library/LaunchAgents", shell, false, "macOS launchd: agents at login"},
	{"/var/spool/cron", shell, true, "cron: the crontab spool"},
	{"/etc/crontab", shell, true, "cron"},
	{"/etc/cron.d", shell, true, "cron"},
	{"/etc/systemd", shell, true, "systemd: system units"},
	{"/etc/rc.local", shell, true, "boot"},
	{"/etc/init.d", shell, false, "boot"},
	{"<workspace>/.vscode/tasks.json", shell, true, "VS Code: tasks with runOn folderOpen run when the folder opens"},
	{"<workspace>/.vscode/launch.json", shell, false, "VS Code: pre-launch tasks and programs run by the debugger"},
}

var aiRows = []PersistRow{
	{"~/.claude", aiCfg, true, "Claude Code: settings (hooks run commands), MCP servers, CLAUDE.md, commands, agents"},
	{"~/.claude.json", aiCfg, true, "Claude Code: MCP servers and per-project settings"},
	{"~/.config/Claude", aiCfg, true, "Claude Desktop: claude_desktop_config.json starts MCP servers"},
	{"~/.cursor", aiCfg, true, "Cursor: mcp.json starts MCP servers; rules"},
	{"~/.config/Cursor", aiCfg, true, "Cursor: user settings"},
	{"~/.vscode", aiCfg, true, "VS Code: extensions and their settings"},
	{"~/.config/Code", aiCfg, true, "VS Code, Copilot, Cline: user settings.json, mcp.json, extension storage"},
	{"~/.config/Code - Insiders", aiCfg, true, "VS Code Insiders: as VS Code"},
	{"~/.config/VSCodium", aiCfg, true, "VSCodium: as VS Code"},
	{"~/.config/github-copilot", aiCfg, true, "GitHub Copilot: tokens and settings"},
	{"~/.copilot", aiCfg, true, "Copilot CLI: MCP servers and instructions"},
	{"~/.codeium", aiCfg, true, "Windsurf: mcp_config.json and global rules"},
	{"~/.windsurf", aiCfg, true, "Windsurf: settings"},
	{"~/.config/Windsurf", aiCfg, true, "Windsurf: user settings"},
	{"~/.cline", aiCfg, true, "Cline: settings and MCP servers"},
	{"~/Documents/Cline", aiCfg, true, "Cline: global rules, workflows and MCP servers"},
	{"~/.continue", aiCfg, true, "Continue: config.json/config.yaml, MCP servers and rules"},
	{"~/.config/zed", aiCfg, true, "Zed: settings.json (context servers) and keymaps"},
	{"~/.gemini", aiCfg, true, "Gemini CLI: settings.json (MCP servers) and GEMINI.md"},
	{"~/.codex", aiCfg, true, "Codex: config.toml (MCP servers) and AGENTS.md"},
	{"~/.aider.conf.yml", aiCfg, true, "aider: its configuration"},
	{"~/.config/opencode", aiCfg, true, "opencode: MCP servers and agents"},
	{"~/.config/goose", aiCfg, true, "goose: extensions (MCP servers)"},
	{"~/.aws/amazonq", aiCfg, true, "Amazon Q: mcp.json and rules"},
	{"~/.kiro", aiCfg, true, "Kiro: MCP servers and steering"},
	{"<workspace>/.claude", aiCfg, true, "Claude Code: project settings (hooks run commands), commands, agents"},
	{"<workspace>/.mcp.json", aiCfg, true, "Claude Code: the project's MCP servers"},
	{"<workspace>/**/CLAUDE.md", aiCfg, false, "Claude Code: instructions read into every session"},
	{"<workspace>/**/CLAUDE.local.md", aiCfg, false, "Claude Code: instructions read into every session"},
	{"<workspace>/.cursor", aiCfg, true, "Cursor: mcp.json and rules"},
	{"<workspace>/**/.cursorrules", aiCfg, false, "Cursor: legacy rules"},
	{"<workspace>/.vscode/mcp.json", aiCfg, true, "VS Code: the workspace's MCP servers"},
	{"<workspace>/.vscode/settings.json", aiCfg, false, "VS Code, Copilot: workspace settings (chat, terminal env, interpreters)"},
	{"<workspace>/.github/copilot-instructions.md", aiCfg, false, "Copilot: instructions read into every chat"},
	{"<workspace>/.github/instructions", aiCfg, false, "Copilot: path-specific instructions"},
	{"<workspace>/.github/prompts", aiCfg, false, "Copilot: prompt files"},
	{"<workspace>/.github/chatmodes", aiCfg, false, "Copilot: chat modes"},
	{"<workspace>/**/.windsurfrules", aiCfg, false, "Windsurf: rules"},
	{"<workspace>/.windsurf", aiCfg, false, "Windsurf: rules and workflows"},
	{"<workspace>/**/.clinerules", aiCfg, false, "Cline: rules"},
	{"<workspace>/.roo", aiCfg, false, "Roo Code: rules and MCP servers"},
	{"<workspace>/.continue", aiCfg, false, "Continue: the workspace's rules and MCP servers"},
	{"<workspace>/.zed", aiCfg, false, "Zed: the workspace's settings (context servers)"},
	{"<workspace>/**/.rules", aiCfg, false, "Zed: rules"},
	{"<workspace>/**/GEMINI.md", aiCfg, false, "Gemini CLI: instructions read into every session"},
	{"<workspace>/.gemini", aiCfg, false, "Gemini CLI: the workspace's settings and MCP servers"},
	{"<workspace>/**/AGENTS.md", aiCfg, false, "Codex, Cursor, Copilot and others: instructions read into every session"},
	{"<workspace>/.codex", aiCfg, false, "Codex: the workspace's config"},
	{"<workspace>/.aider.conf.yml", aiCfg, false, "aider: the workspace's configuration"},
	{"<workspace>/opencode.json", aiCfg, false, "opencode: the workspace's MCP servers and agents"},
	{"<workspace>/.amazonq", aiCfg, false, "Amazon Q: the workspace's MCP servers and rules"},
	{"<workspace>/.kiro", aiCfg, false, "Kiro: steering and MCP servers"},
}

// join concatenates the groups of rows, in order.
func join(groups ...[]PersistRow) []PersistRow {
	var out []PersistRow
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// persistMatchers are the table's patterns, split once.
var persistMatchers = func() []segPattern {
	out := make([]segPattern, len(Persistence))
	for i, r := range Persistence {
		out[i] = splitPattern(r.Pattern)
	}
	return out
}()

// persistCategory is the category the table gives a normalized path, ""
// when no row names it. write is true for every access that changes the
// file system.
func persistCategory(norm string, write bool) string {
	if InertHookSample(norm) {
		return ""
	}
	var segs []string
	for i, r := range Persistence {
		if !write && !r.Reads {
			continue
		}
		if segs == nil {
			segs = strings.Split(norm, "/")
		}
		if persistMatchers[i].match(segs) {
			return r.Category
		}
	}
	return ""
}

// InertHookSample is one of the sample hooks git writes into every new
// repository (.git/hooks/pre-commit.sample): git runs a hook named after
// its event only, so a sample never runs (renaming it onto its event's
// name is a write of that name, judged as such).
func InertHookSample(norm string) bool {
	dir, file := path.Split(norm)
	return strings.HasSuffix(dir, "/.git/hooks/") && strings.HasSuffix(file, ".sample")
}

// segPattern is a pattern split at its "**": head matches the first
// segments of a path, tail a run of segments anywhere after them.
type segPattern struct {
	head, tail []string
	deep       bool // the pattern has a "**"
}

func splitPattern(p string) segPattern {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if s == "**" {
			return segPattern{head: segs[:i], tail: segs[i+1:], deep: true}
		}
	}
	return segPattern{head: segs}
}

// match reports whether the path (split at "/") is the pattern or lies
// below it. Linear in the path's length times the pattern's: the program
// under audit chooses the path.
func (sp segPattern) match(segs []string) bool {
	if !matchRun(sp.head, segs) {
		return false
	}
	if !sp.deep {
		return true
	}
	for i := len(sp.head); i+len(sp.tail) <= len(segs); i++ {
		if matchRun(sp.tail, segs[i:]) {
			return true
		}
	}
	return false
}

// matchRun reports whether the first segments of segs match pat.
func matchRun(pat, segs []string) bool {
	if len(segs) < len(pat) {
		return false
	}
	for i, p := range pat {
		if p == segs[i] {
			continue
		}
		if !strings.ContainsAny(p, "*?[") {
			return false
		}
		if ok, _ := path.Match(p, segs[i]); !ok {
			return false
		}
	}
	return true
}
