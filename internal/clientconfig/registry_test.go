package clientconfig

import (
	"context"
	"errors"
	"testing"
)

func TestCheckPackages(t *testing.T) {
	servers := []*Server{
		{Name: "a", Kind: KindNPM, Package: "real-pkg", Sources: []Source{{Path: "/f", Line: 3, Name: "a"}}},
		{Name: "b", Kind: KindNPM, Package: "unclaimed-pkg", Sources: []Source{{Path: "/f", Line: 7, Name: "b"}, {Path: "/g", Line: 2, Name: "b2"}}},
		{Name: "c", Kind: KindPyPI, Package: "down", Sources: []Source{{Path: "/f", Line: 9, Name: "c"}}},
		{Name: "d", Kind: KindOCI, Package: "img", Sources: []Source{{Path: "/f", Line: 11, Name: "d"}}},
	}
	var asked []string
	exists := func(_ context.Context, kind, name string) (bool, error) {
		asked = append(asked, kind+":"+name)
		switch name {
		case "unclaimed-pkg":
			return false, nil
		case "down":
			return false, errors.New("registry unreachable")
		}
		return true, nil
	}
	ws := CheckPackages(context.Background(), servers, exists)
	if len(asked) != 3 {
		t.Errorf("asked %v, want the npm and PyPI packages only", asked)
	}
	kinds := map[string]int{}
	for _, w := range ws {
		kinds[w.Kind]++
	}
	if kinds[WarnUnknownPkg] != 2 || kinds[WarnNote] != 1 || len(ws) != 3 {
		t.Errorf("warnings %v, want the unclaimed package at both places and a note for the failed check", ws)
	}
}
