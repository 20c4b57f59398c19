package trace

import (
	"strconv"
	"strings"
)

// interpretExec handles program starts, keeping the argument vector.
func interpretExec(r *Record, a args) bool {
	switch r.Name {
	case "execve":
		r.Path = absPath("", a.at(0))
		r.Argv, r.ArgvTrunc = stringArray(a.at(1))
	case "execveat":
		r.Path = absPath(a.at(0), a.at(1))
		r.Argv, r.ArgvTrunc = stringArray(a.at(2))
	default:
		return false
	}
	r.Kind, r.Op = KindExec, "exec"
	return true
}

// interpretProcess handles the process tree: new children (their pids let
// the classifier follow fds and programs), signals and exits.
func interpretProcess(r *Record, a args) bool {
	switch r.Name {
	case "clone", "clone3":
		r.Op = "clone"
		r.CloneFlags = cloneFlags(r.Name, a)
		r.setChild()
	case "fork", "vfork":
		r.Op = "fork"
		r.setChild()
	case "kill", "tgkill", "tkill":
		r.Op = "kill"
		r.SignalPID, _ = strconv.Atoi(strings.TrimSpace(a.at(0)))
		if len(a) > 0 {
			r.Signal = strings.TrimSpace(a[len(a)-1])
		}
	case "exit_group", "exit":
		r.Op = "exit"
	default:
		return false
	}
	r.Kind = KindProcess
	return true
}

// cloneFlags reads flags=… among clone's arguments, or the flags field of
// clone3's struct.
func cloneFlags(name string, a args) []string {
	if name == "clone" {
		src := a.at(0)
		for _, x := range a {
			if v, ok := strings.CutPrefix(x, "flags="); ok {
				src = v
			}
		}
		return Flags(src)
	}
	if f, ok := Field(a.at(0), "flags"); ok {
		return Flags(f)
	}
	return nil
}

func (r *Record) setChild() {
	if r.RetKnown && r.RetVal > 0 {
		r.Child = int(r.RetVal)
	}
}

// stringArray decodes ["a", "b", ...] and reports truncation.
func stringArray(arg string) ([]string, bool) {
	var out []string
	trunc := false
	for _, el := range Elements(arg) {
		if el == "..." {
			trunc = true
			continue
		}
		b, t, ok := Unquote(el)
		if !ok {
			continue
		}
		trunc = trunc || t
		out = append(out, string(b))
	}
	return out, trunc
}
