package cli

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/site"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// publishOptions are the flags of publish.
type publishOptions struct {
	site.Options
	// Mirror is the URL of the published site to copy into Out first.
	Mirror string
}

func runPublish(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "publish")
	var o publishOptions
	fs.StringVar(&o.Out, "out", "", "the site directory: read back when it exists, then extended")
	fs.StringVar(&o.BaseURL, "base-url", "", "where the site is served, ending in / (absolute links in the feed)")
	fs.StringVar(&o.Mirror, "mirror", "", "copy the site published at this URL into --out first, keeping its history")
	pos, _, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if o.Out == "" || len(pos) == 0 {
		return fmt.Errorf("%w: usage: mcp-audit publish --out SITE [--base-url URL] [--mirror URL] RESULTS… (oldest first)", verdict.ErrUsage)
	}
	for _, d := range pos {
		if err := checkResultsDir(d); err != nil {
			return err
		}
	}
	if err := site.CheckBaseURL(o.BaseURL); err != nil {
		return fmt.Errorf("%w: %w", verdict.ErrUsage, err)
	}
	o.Results = pos
	if o.Mirror != "" {
		n, err := site.Mirror(ctx, &http.Client{Timeout: 2 * time.Minute}, o.Mirror, o.Out)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "mirrored %d files of %s\n", n, o.Mirror)
	}
	sum, err := site.Publish(o.Options)
	if err != nil {
		return err
	}
	for _, s := range sum.Skipped {
		fmt.Fprintf(env.Stderr, "skipped %s: not usable in a URL path\n", s)
	}
	fmt.Fprintf(env.Stderr, "published %d new version(s) and %d behavior change(s) to %s\n", sum.Versions, sum.Entries, o.Out)
	return nil
}
