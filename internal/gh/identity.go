package gh

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v88/github"
)

// ActionsBot is the login of the workflow's own GITHUB_TOKEN: comments
// written with it are authored by this bot account.
const ActionsBot = "github-actions[bot]"

// Identity is the login the token writes as. A personal or OAuth token
// can ask (GET /user); an installation token (the workflow's
// GITHUB_TOKEN) cannot, GitHub answers 403 "Resource not accessible by
// integration", and then it writes as ActionsBot. A custom GitHub App's
// token is also refused and is taken for ActionsBot: its own comments are
// then not recognized and a new one is written, never somebody else's
// edited.
func (c *Client) Identity(ctx context.Context) (string, error) {
	if c.login != "" {
		return c.login, nil
	}
	u, resp, err := c.API.Users.Get(ctx, "")
	switch {
	case err == nil && u.GetLogin() != "":
		c.login = u.GetLogin()
	case resp != nil && resp.StatusCode == http.StatusForbidden:
		c.login = ActionsBot
	case err == nil:
		return "", errors.New("reading the token's identity: no login in the answer")
	default:
		return "", fmt.Errorf("reading the token's identity: %w", err)
	}
	return c.login, nil
}

// ownComment reports whether a comment is the token's own sticky comment:
// written by login and starting with marker. Anybody can write the
// marker; only the author makes it ours. The marker must open the body:
// quoted further down (in a report's untrusted text) it is not a mark.
func ownComment(cm *github.IssueComment, login, marker string) bool {
	return strings.EqualFold(cm.GetUser().GetLogin(), login) && strings.HasPrefix(cm.GetBody(), marker)
}
