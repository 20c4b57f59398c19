package classify

import "testing"

// TestHookSamplesAreInert: git's sample hooks in a new repository never
// run; a hook under its event's name (the control), the hooks directory
// itself and a repository's config still are persistence.
func TestHookSamplesAreInert(t *testing.T) {
	for p, want := range map[string]bool{
		"<workspace>/reports/.git/hooks/pre-commit.sample": false,
		"<workspace>/reports/.git/hooks/pre-commit":        true,
		"<workspace>/.git/hooks/post-checkout":             true,
		"<workspace>/reports/.git/config":                  true,
		"~/.gitconfig":                                     true,
	} {
		if got := persistCategory(p, true) != ""; got != want {
			t.Errorf("%s: persistence %v, want %v", p, got, want)
		}
	}
}
