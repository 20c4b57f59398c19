package clientconfig

import "context"

// PackageExists asks a registry whether it has a package of kind
// KindNPM or KindPyPI. It needs the network, so the caller provides it.
type PackageExists func(ctx context.Context, kind, name string) (bool, error)

// CheckPackages warns about each npm or PyPI server whose package the
// registry does not have: anyone can publish that name later, and every
// start of the client would then run their code. A package whose check
// fails gets a note saying so (err's text is the caller's own). Each
// package is asked about once.
func CheckPackages(ctx context.Context, servers []*Server, exists PackageExists) []Warning {
	var out []Warning
	asked := map[string]bool{}
	for _, s := range servers {
		if s.Kind != KindNPM && s.Kind != KindPyPI {
			continue
		}
		k := s.Kind + ":" + s.Package
		if asked[k] {
			continue
		}
		asked[k] = true
		ok, err := exists(ctx, s.Kind, s.Package)
		var w Warning
		switch {
		case err != nil:
			w = Warning{Kind: WarnNote, Message: "could not check whether the " + s.Kind + " registry has " + s.Package + ": " + quoteName(err.Error())}
		case !ok:
			w = Warning{Kind: WarnUnknownPkg, Message: "the " + s.Kind + " registry has no package " + s.Package +
				": anyone can publish it, and the client would then run their code"}
		default:
			continue
		}
		for _, src := range s.Sources {
			w.Path, w.Line, w.Entry, w.Server = src.Path, src.Line, src.Line, quoteName(src.Name)
			out = append(out, w)
		}
	}
	return out
}
