// Package gh is the GitHub REST adapter: the sticky PR comment and the
// pull request that proposes new baselines. It wraps go-github; tests point
// its base URL at an httptest server.
package gh

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/google/go-github/v88/github"
)

// MaxCommentBytes is GitHub's limit for a comment body.
const MaxCommentBytes = 65536

// Client talks to one repository.
type Client struct {
	API         *github.Client
	Owner, Repo string
	login       string // the token's identity, once read (Identity)
}

// New returns a client for owner/repo. apiURL is GITHUB_API_URL ("" for
// the public API).
func New(token, apiURL, owner, repo string) (*Client, error) {
	opts := []github.ClientOptionsFunc{github.WithAuthToken(token), github.WithUserAgent("mcp-audit")}
	if apiURL != "" && apiURL != "https://api.github.com" {
		u := strings.TrimSuffix(apiURL, "/") + "/"
		opts = append(opts, github.WithURLs(&u, &u))
	}
	c, err := github.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	return &Client{API: c, Owner: owner, Repo: repo}, nil
}

// Truncate fits a comment body into GitHub's limit.
func Truncate(body string) string {
	if len(body) <= MaxCommentBytes {
		return body
	}
	note := "\n\n… (truncated: the full report is in the job summary and the report artifact)\n"
	cut := MaxCommentBytes - len(note)
	for cut > 0 && body[cut]&0xC0 == 0x80 {
		cut--
	}
	return body[:cut] + note
}

// UpsertComment keeps one comment per pull request: the token's own
// comment containing marker is edited, or one is created when there is
// none. A comment by anybody else is never edited, marker or not. It
// reports whether it created the comment.
func (c *Client) UpsertComment(ctx context.Context, number int, marker, body string) (created bool, err error) {
	body = Truncate(body)
	login, err := c.Identity(ctx)
	if err != nil {
		return false, err
	}
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		comments, resp, err := c.API.Issues.ListComments(ctx, c.Owner, c.Repo, number, opts)
		if err != nil {
			return false, fmt.Errorf("listing comments of #%d: %w", number, err)
		}
		for _, cm := range comments {
			if ownComment(cm, login, marker) {
				if cm.GetBody() == body {
					return false, nil
				}
				_, _, err := c.API.Issues.EditComment(ctx, c.Owner, c.Repo, cm.GetID(), &github.IssueComment{Body: &body})
				if err != nil {
					return false, fmt.Errorf("updating comment %d: %w", cm.GetID(), err)
				}
				return false, nil
			}
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if _, _, err := c.API.Issues.CreateComment(ctx, c.Owner, c.Repo, number, &github.IssueComment{Body: &body}); err != nil {
		return false, fmt.Errorf("commenting on #%d: %w", number, err)
	}
	return true, nil
}

// ProposeFiles commits files on top of base into branch (created or
// moved) and opens a pull request from it, or updates the open one. It
// returns the pull request's URL.
func (c *Client) ProposeFiles(ctx context.Context, base, branch, title, body string, files map[string][]byte) (string, error) {
	if len(files) == 0 {
		return "", errors.New("no files to propose")
	}
	ref, _, err := c.API.Git.GetRef(ctx, c.Owner, c.Repo, "heads/"+base)
	if err != nil {
		return "", fmt.Errorf("reading branch %s: %w", base, err)
	}
	parent, _, err := c.API.Git.GetCommit(ctx, c.Owner, c.Repo, ref.GetObject().GetSHA())
	if err != nil {
		return "", fmt.Errorf("reading commit of %s: %w", base, err)
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var entries []*github.TreeEntry
	for _, p := range paths {
		blob, _, err := c.API.Git.CreateBlob(ctx, c.Owner, c.Repo, github.Blob{
			Content:  github.Ptr(base64.StdEncoding.EncodeToString(files[p])),
			Encoding: github.Ptr("base64"),
		})
		if err != nil {
			return "", fmt.Errorf("uploading %s: %w", p, err)
		}
		entries = append(entries, &github.TreeEntry{Path: github.Ptr(p), Mode: github.Ptr("100644"), Type: github.Ptr("blob"), SHA: blob.SHA})
	}
	tree, _, err := c.API.Git.CreateTree(ctx, c.Owner, c.Repo, parent.GetTree().GetSHA(), entries)
	if err != nil {
		return "", fmt.Errorf("creating tree: %w", err)
	}
	commit, _, err := c.API.Git.CreateCommit(ctx, c.Owner, c.Repo, github.Commit{
		Message: github.Ptr(title), Tree: tree, Parents: []*github.Commit{{SHA: parent.SHA}},
	}, nil)
	if err != nil {
		return "", fmt.Errorf("creating commit: %w", err)
	}
	if _, resp, err := c.API.Git.GetRef(ctx, c.Owner, c.Repo, "heads/"+branch); err == nil {
		if _, _, err := c.API.Git.UpdateRef(ctx, c.Owner, c.Repo, "heads/"+branch, github.UpdateRef{SHA: commit.GetSHA(), Force: github.Ptr(true)}); err != nil {
			return "", fmt.Errorf("moving %s: %w", branch, err)
		}
	} else if resp != nil && resp.StatusCode == http.StatusNotFound {
		if _, _, err := c.API.Git.CreateRef(ctx, c.Owner, c.Repo, github.CreateRef{Ref: "refs/heads/" + branch, SHA: commit.GetSHA()}); err != nil {
			return "", fmt.Errorf("creating %s: %w", branch, err)
		}
	} else {
		return "", fmt.Errorf("reading branch %s: %w", branch, err)
	}
	body = Truncate(body)
	prs, _, err := c.API.PullRequests.List(ctx, c.Owner, c.Repo, &github.PullRequestListOptions{
		State: "open", Head: c.Owner + ":" + branch, Base: base})
	if err != nil {
		return "", fmt.Errorf("listing pull requests: %w", err)
	}
	if len(prs) > 0 {
		pr, _, err := c.API.PullRequests.Edit(ctx, c.Owner, c.Repo, prs[0].GetNumber(), &github.PullRequest{Title: &title, Body: &body})
		if err != nil {
			return "", fmt.Errorf("updating pull request: %w", err)
		}
		return pr.GetHTMLURL(), nil
	}
	pr, _, err := c.API.PullRequests.Create(ctx, c.Owner, c.Repo, &github.NewPullRequest{
		Title: &title, Head: &branch, Base: &base, Body: &body})
	if err != nil {
		return "", fmt.Errorf("opening pull request: %w", err)
	}
	return pr.GetHTMLURL(), nil
}
