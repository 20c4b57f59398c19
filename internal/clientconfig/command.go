package clientconfig

import (
	"fmt"
	"path"
	"strings"
)

// mapped is what a server's command maps to, before host paths are
// replaced and warnings get their file and line.
type mapped struct {
	kind    string
	pkg     string
	version string
	bin     string
	args    []string
	// env names variables the command line itself sets (docker -e, env
	// NAME=VALUE); vars holds their values for the secret check only.
	env   []string
	vars  []variable
	local string
	// command and reason explain an unrecognised command.
	command string
	reason  string
	notes   []note
}

// note is a warning without its location.
type note struct{ kind, msg string }

func (m *mapped) warn(kind, format string, a ...any) {
	m.notes = append(m.notes, note{kind, fmt.Sprintf(format, a...)})
}

func unrecognised(command, format string, a ...any) mapped {
	return mapped{kind: KindUnrecognised, command: command, reason: fmt.Sprintf(format, a...)}
}

// launchers maps a program's base name to its mapper.
var launchers map[string]func(prog string, args []string, depth int) mapped

func init() {
	launchers = map[string]func(string, []string, int) mapped{
		"npx": mapNpx, "pnpx": mapPnpmDlx, "bunx": mapBunx, "npm": mapNpm, "pnpm": mapPnpm,
		"bun": mapBun, "yarn": mapYarn, "uvx": mapUvx, "uv": mapUv, "pipx": mapPipx,
		"node": mapNode, "nodejs": mapNode, "docker": mapDocker, "podman": mapDocker,
		"env": mapEnv,
		"sh":  mapShell, "bash": mapShell, "zsh": mapShell, "dash": mapShell, "fish": mapShell, "ksh": mapShell,
		"cmd": mapShell, "powershell": mapShell, "pwsh": mapShell,
	}
}

// maxWrap bounds how many wrappers (env, sh -c, cmd /c) are unwrapped.
const maxWrap = 4

// mapCommand maps a command and its arguments to a target. What it does
// not recognise it reports as unrecognised, never guesses.
func mapCommand(command string, args []string, depth int) mapped {
	if depth > maxWrap {
		return unrecognised(command, "more than %d wrappers (env, sh -c, cmd /c) around the command", maxWrap)
	}
	prog := progName(command)
	if prog == "" {
		return unrecognised(command, "the command is empty")
	}
	if f, ok := launchers[prog]; ok {
		m := f(prog, args, depth)
		if m.kind == KindUnrecognised {
			m.pkg, m.version, m.bin, m.args = "", "", "", nil
		}
		return m
	}
	if isPython(prog) {
		return mapPython(prog, args)
	}
	if isPathLike(command) {
		return mapped{kind: KindLocal, local: command, args: args}
	}
	return unrecognised(command, "%s is not a launcher mcp-audit knows (npx, npm exec, pnpm dlx, bunx, uvx, uv run, pipx run, python -m, node, docker run); audit it by naming its package or directory", quoteName(prog))
}

// progName is a command's program without directory and Windows
// extension, lowercased: /usr/local/bin/npx and C:\…\npx.cmd are npx.
func progName(command string) string {
	base := path.Base(strings.ReplaceAll(command, `\`, "/"))
	if base == "." || base == "/" {
		return ""
	}
	low := strings.ToLower(base)
	for _, ext := range []string{".exe", ".cmd", ".bat", ".ps1"} {
		low = strings.TrimSuffix(low, ext)
	}
	return low
}

func isPython(prog string) bool {
	if prog == "python" || prog == "python3" || prog == "py" {
		return true
	}
	rest, ok := strings.CutPrefix(prog, "python3.")
	return ok && rest != "" && strings.Trim(rest, "0123456789") == ""
}

// isPathLike: an absolute or explicitly relative path, on any OS.
func isPathLike(s string) bool {
	return strings.HasPrefix(s, "/") || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") ||
		strings.HasPrefix(s, "~/") || strings.HasPrefix(s, `.\`) || strings.HasPrefix(s, `..\`) || isWinAbs(s)
}

func isWinAbs(s string) bool {
	return len(s) >= 3 && (s[0] >= 'A' && s[0] <= 'Z' || s[0] >= 'a' && s[0] <= 'z') && s[1] == ':' && (s[2] == '\\' || s[2] == '/')
}

// flagSet describes a launcher's options: which take a value. An option
// it does not list makes the command unrecognised, since whether it takes
// a value (and so where the package name is) cannot be known.
type flagSet struct {
	value map[string]bool
	bool  map[string]bool
	// shortBundles: -it is -i -t (docker).
	shortBundles bool
}

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// option is one option read, with its value.
type option struct{ name, value string }

// scan reads options up to the first positional argument (or --) and
// returns them and the rest, the positional first.
func (fs flagSet) scan(args []string) ([]option, []string, error) {
	var opts []option
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return opts, args[i+1:], nil
		case !strings.HasPrefix(a, "-") || a == "-":
			return opts, args[i:], nil
		}
		name, value, hasValue := strings.Cut(a, "=")
		switch {
		case fs.value[name] && hasValue:
			opts = append(opts, option{name, value})
		case fs.value[name]:
			if i+1 >= len(args) {
				return nil, nil, fmt.Errorf("option %s needs a value", quoteName(name))
			}
			opts = append(opts, option{name, args[i+1]})
			i++
		case fs.bool[name]:
			opts = append(opts, option{name, value})
		case fs.shortBundles && !strings.HasPrefix(a, "--") && len(a) > 2:
			more, err := fs.bundle(a, args, &i)
			if err != nil {
				return nil, nil, err
			}
			opts = append(opts, more...)
		default:
			return nil, nil, fmt.Errorf("option %s is not one mcp-audit knows", quoteName(name))
		}
	}
	return opts, nil, nil
}

// bundle splits -it into -i -t; the last may take the next argument.
func (fs flagSet) bundle(a string, args []string, i *int) ([]option, error) {
	var out []option
	for j := 1; j < len(a); j++ {
		name := "-" + string(a[j])
		switch {
		case fs.bool[name]:
			out = append(out, option{name: name})
		case fs.value[name] && j == len(a)-1 && *i+1 < len(args):
			out = append(out, option{name, args[*i+1]})
			*i++
		case fs.value[name]:
			out = append(out, option{name, a[j+1:]})
			return out, nil
		default:
			return nil, fmt.Errorf("option %s is not one mcp-audit knows", quoteName(a))
		}
	}
	return out, nil
}

// values are the values of the named options.
func values(opts []option, names ...string) []string {
	var out []string
	for _, o := range opts {
		for _, n := range names {
			if o.name == n {
				out = append(out, o.value)
			}
		}
	}
	return out
}

func has(opts []option, names ...string) bool {
	for _, o := range opts {
		for _, n := range names {
			if o.name == n {
				return true
			}
		}
	}
	return false
}
