package action

import (
	"github.com/sethvargo/go-githubactions"
)

// The event payload is decoded as untyped JSON by go-githubactions; these
// helpers read the few fields the Action uses and yield zero values when a
// field is missing or of another type, so a malformed payload degrades to
// "check everything" rather than failing.

// pullRequest is what the Action needs from a pull_request event.
type pullRequest struct {
	Number  int    // 0 when the payload has none: no comment is posted
	BaseSHA string // "" when the payload has none: every server is checked
}

func pullRequestOf(event map[string]any) pullRequest {
	pr, _ := event["pull_request"].(map[string]any)
	base, _ := field(pr, "base", "sha").(string)
	return pullRequest{Number: intField(pr, "number"), BaseSHA: base}
}

// defaultBranch is where baseline proposals go: the repository's default
// branch, else the ref the workflow ran on, else main.
func defaultBranch(ghctx *githubactions.GitHubContext) string {
	base, _ := field(ghctx.Event, "repository", "default_branch").(string)
	if base == "" {
		base = ghctx.RefName
	}
	if base == "" {
		base = "main"
	}
	return base
}

func field(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

func intField(m map[string]any, key string) int {
	f, _ := m[key].(float64)
	return int(f)
}
