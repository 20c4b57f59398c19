package action

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/coverage"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"

	"github.com/mcp-audit/mcp-audit/internal/check"
	"github.com/mcp-audit/mcp-audit/internal/gh"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// ghClient is the GitHub API client for the workflow's repository.
func (r *run) ghClient() (*gh.Client, error) {
	if r.in.Token == "" {
		return nil, errors.New("no github-token")
	}
	owner, repo := r.ghctx.Repo()
	return gh.New(r.in.Token, r.ghctx.APIURL, owner, repo)
}

// comment creates or updates the pull request's one mcp-audit comment of
// this workflow job (sticky.go), so every push refreshes it instead of
// adding another.
func (r *run) comment(ctx context.Context, number int, body string) error {
	c, err := r.ghClient()
	if err != nil {
		return err
	}
	marker := stickyMarker(r.env.Getenv)
	created, err := c.UpsertComment(ctx, number, marker, marker+"\n"+body)
	if err != nil {
		return err
	}
	r.a.Infof("PR comment %s", map[bool]string{true: "created", false: "updated"}[created])
	return nil
}

// proposeBaselines opens (or updates) a pull request that records the
// manifests of the new releases as baselines, with the report as its
// description: merging it is the review.
func (r *run) proposeBaselines(ctx context.Context, manifests, body string) error {
	files, err := r.baselineFiles(manifests)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		r.a.Infof("no new releases: no baselines to propose")
		return nil
	}
	c, err := r.ghClient()
	if err != nil {
		return err
	}
	url, err := c.ProposeFiles(ctx, defaultBranch(r.ghctx), "mcp-audit/baselines", "mcp-audit: baselines for new releases",
		"Baselines for new releases of the MCP servers in "+r.in.Config+". Review the behavior below; merging records it as trusted.\n\n"+body, files)
	if err != nil {
		return err
	}
	r.a.SetOutput("pull-request", url)
	r.a.Infof("proposed %d baseline(s): %s", len(files), url)
	return nil
}

// baselineFiles maps the manifests written during the check to their
// repository paths under the baseline directory.
func (r *run) baselineFiles(manifests string) (map[string][]byte, error) {
	files := map[string][]byte{}
	baseRel, err := filepath.Rel(r.ws, r.cfg.BaselineDir())
	if err != nil {
		return nil, err
	}
	err = filepath.WalkDir(manifests, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		rel, _ := filepath.Rel(manifests, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		man, err := m.Decode(data)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		if harmful := check.HarmfulFor(r.cfg, man); len(harmful) > 0 {
			// Never proposed: merging would record harm as trusted.
			r.a.Warningf("not proposing %s %s as a baseline: %s", textsafe.Line(man.Target.Name, 200),
				textsafe.Line(man.Target.Version, 100), check.NotAcceptable(harmful))
			return nil
		}
		if reasons := coverage.Incomplete(man); len(reasons) > 0 && !r.allowsIncomplete(man) {
			// Nor a version that was not audited as a verdict needs: it is
			// what later versions would be compared with.
			r.a.Warningf("not proposing %s %s as a baseline: it was not audited as a verdict needs: %s", textsafe.Line(man.Target.Name, 200),
				textsafe.Line(man.Target.Version, 100), textsafe.Line(strings.Join(reasons, "; "), 2000))
			return nil
		}
		files[filepath.ToSlash(filepath.Join(baseRel, rel))] = data
		return nil
	})
	return files, err
}

// allowsIncomplete reports whether the configuration or the input lets
// the manifest's server pass incomplete.
func (r *run) allowsIncomplete(man *m.Manifest) bool {
	if r.in.AllowIncomplete || r.cfg.AllowIncomplete {
		return true
	}
	s := r.cfg.ServerForPackage(man.Target.Name)
	return s != nil && s.AllowIncomplete
}
