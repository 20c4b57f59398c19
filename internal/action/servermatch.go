package action

import (
	"github.com/mcp-audit/mcp-audit/internal/config"
)

// A pull request's servers are matched with the base's by what they run,
// not by their names: a name is a label the pull request can change at
// will. Renaming a server keeps it the same server (its env and
// canary_env are compared with the base's), and pointing a name at
// another package makes it a new server that inherits nothing of the
// base's policy for the old one.

// targetKey identifies what a server runs, apart from its version: the
// kind and the package name or local path.
func targetKey(s *config.Server) string {
	if s.Spec.Kind == "" && s.Spec.Name == "" && s.Spec.Path == "" {
		return "raw\x00" + s.Target
	}
	return s.Spec.Kind + "\x00" + s.Spec.Name + "\x00" + s.Spec.Path
}

// baseEntry is the base's server a pull request's server is judged
// against: the base server that runs the same target, the one of the same
// name first, else the first in the file. Nil when the base runs no server
// with that target: the server is new, even under a name the base used.
func baseEntry(base *config.Config, s *config.Server) *config.Server {
	if base == nil {
		return nil
	}
	key := targetKey(s)
	if b := base.Server(s.Name); b != nil && targetKey(b) == key {
		return b
	}
	for _, b := range base.Servers {
		if targetKey(b) == key {
			return b
		}
	}
	return nil
}

// sameNameOtherTarget is the base's server of the same name when it ran
// another target: the pull request swapped what the name runs.
func sameNameOtherTarget(base *config.Config, s *config.Server) *config.Server {
	if base == nil {
		return nil
	}
	if b := base.Server(s.Name); b != nil && targetKey(b) != targetKey(s) {
		return b
	}
	return nil
}
