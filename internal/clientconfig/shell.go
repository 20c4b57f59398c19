package clientconfig

import (
	"strings"
)

// shellMeta are the characters that make a shell line more than words:
// such a line is not mapped, since what it runs cannot be told without
// being the shell.
const shellMeta = "|&;<>()$`\\\"'*?[]{}~#%!^\n\r"

// mapShell: sh -c 'LINE', bash -lc 'LINE', cmd /c CMD…, powershell
// -Command LINE. A line of plain words is mapped as the command it names;
// every form is warned about.
func mapShell(prog string, args []string, depth int) mapped {
	line, ok := shellLine(prog, args)
	if !ok {
		m := unrecognised(prog, "%s runs a script or an interactive shell, not a server command mcp-audit can map", prog)
		m.warn(WarnShell, "the server is started through a shell (%s)", prog)
		return m
	}
	m := mapScript(prog, line, depth)
	m.warn(WarnShell, "the server is started through a shell (%s): what runs is whatever the line expands to when the client starts it", prog)
	return m
}

// shellLine is the command line a shell invocation runs.
func shellLine(prog string, args []string) (string, bool) {
	switch prog {
	case "cmd":
		for i, a := range args {
			switch strings.ToLower(a) {
			case "/c", "/k":
				return strings.Join(args[i+1:], " "), i+1 < len(args)
			case "/s", "/d", "/q", "/u", "/a":
			default:
				return "", false
			}
		}
	case "powershell", "pwsh":
		for i := 0; i < len(args); i++ {
			switch strings.ToLower(args[i]) {
			case "-command", "-c":
				return strings.Join(args[i+1:], " "), i+1 < len(args)
			case "-noprofile", "-noninteractive", "-nologo":
			case "-executionpolicy":
				i++
			default:
				return "", false
			}
		}
	default:
		for i, a := range args {
			if !strings.HasPrefix(a, "-") || a == "--" {
				return "", false
			}
			if strings.Contains(a[1:], "c") && !strings.HasPrefix(a, "--") {
				// sh -c LINE [NAME [ARGS…]]: the arguments after the line
				// are $0, $1…, which plain words do not use.
				return strings.Join(args[i+1:min(i+2, len(args))], " "), i+1 < len(args)
			}
		}
	}
	return "", false
}

// mapScript maps a shell line of plain words; any other line is
// unrecognised.
func mapScript(prog, line string, depth int) mapped {
	if strings.ContainsAny(line, shellMeta) {
		return unrecognised(prog, "the shell line uses quoting, variables, pipes or redirections, which mcp-audit does not interpret")
	}
	words := strings.Fields(line)
	if len(words) == 0 {
		return unrecognised(prog, "the shell line is empty")
	}
	return mapCommand(words[0], words[1:], depth+1)
}

// mapEnv: env [-i] [-u NAME]… NAME=VALUE… COMMAND ARGS….
func mapEnv(prog string, args []string, depth int) mapped {
	var names []string
	var vars []variable
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "-i" || a == "--ignore-environment" || a == "-" {
			continue
		}
		if a == "-u" || a == "--unset" {
			i++
			continue
		}
		name, value, ok := strings.Cut(a, "=")
		if !ok || name == "" || strings.HasPrefix(a, "-") {
			break
		}
		names = append(names, name)
		vars = append(vars, variable{name: name, value: value})
	}
	if i >= len(args) {
		return unrecognised(prog, "env names no command")
	}
	m := mapCommand(args[i], args[i+1:], depth+1)
	m.env = append(names, m.env...)
	m.vars = append(vars, m.vars...)
	return m
}
