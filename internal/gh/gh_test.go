package gh_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/gh"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

func TestUpsertCommentCreatesThenUpdates(t *testing.T) {
	api := testenv.NewGitHub(t, "tok")
	c, err := gh.New("tok", api.URL, "acme", "tools")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// Somebody else's comment must be left alone.
	api.Comments[7] = []testenv.Comment{{ID: 1, Body: "LGTM"}}
	created, err := c.UpsertComment(ctx, 7, "<!-- m -->", "<!-- m -->\nfirst")
	if err != nil || !created {
		t.Fatalf("first: created=%v err=%v", created, err)
	}
	created, err = c.UpsertComment(ctx, 7, "<!-- m -->", "<!-- m -->\nsecond")
	if err != nil || created {
		t.Fatalf("second: created=%v err=%v", created, err)
	}
	cs := api.CommentsOf(7)
	if len(cs) != 2 || cs[0].Body != "LGTM" || cs[1].Body != "<!-- m -->\nsecond" {
		t.Fatalf("comments %+v", cs)
	}
	long := "<!-- m -->" + strings.Repeat("é", gh.MaxCommentBytes)
	if _, err := c.UpsertComment(ctx, 7, "<!-- m -->", long); err != nil {
		t.Fatal(err)
	}
	if b := api.CommentsOf(7)[1].Body; len(b) > gh.MaxCommentBytes || !strings.Contains(b, "truncated") {
		t.Errorf("long body: %d bytes", len(b))
	}
}

func TestBadTokenIsAnError(t *testing.T) {
	api := testenv.NewGitHub(t, "tok")
	c, _ := gh.New("wrong", api.URL, "acme", "tools")
	if _, err := c.UpsertComment(context.Background(), 1, "m", "m"); err == nil {
		t.Fatal("want an error")
	}
}

func TestProposeFilesOpensThenUpdatesOnePR(t *testing.T) {
	api := testenv.NewGitHub(t, "tok")
	c, _ := gh.New("tok", api.URL, "acme", "tools")
	ctx := context.Background()
	files := map[string][]byte{"baselines/npm/x/1.0.1.json": []byte("{}\n")}
	u1, err := c.ProposeFiles(ctx, "main", "mcp-audit/baselines", "mcp-audit: new baselines", "report 1", files)
	if err != nil {
		t.Fatal(err)
	}
	u2, err := c.ProposeFiles(ctx, "main", "mcp-audit/baselines", "mcp-audit: new baselines", "report 2", files)
	if err != nil {
		t.Fatal(err)
	}
	if u1 != u2 || len(api.Pulls) != 1 || api.Pulls[0].Body != "report 2" {
		t.Fatalf("pulls %+v (%s, %s)", api.Pulls, u1, u2)
	}
	if string(api.Files["baselines/npm/x/1.0.1.json"]) != "{}\n" || api.Refs["heads/mcp-audit/baselines"] == "" {
		t.Errorf("files %v refs %v", api.Files, api.Refs)
	}
}

// TestUpsertCommentIgnoresOthersMarker: a comment by another user that
// carries the hidden marker is not the sticky comment. It is neither
// edited nor counted, for the token's identity from GET /user and for the
// workflow token, which GET /user refuses (github-actions[bot]).
func TestUpsertCommentIgnoresOthersMarker(t *testing.T) {
	for _, login := range []string{"", "mcp-audit-bot"} {
		api := testenv.NewGitHub(t, "tok")
		api.Login = login
		c, _ := gh.New("tok", api.URL, "acme", "tools")
		ctx := context.Background()
		hijack := testenv.Comment{ID: 1, Body: "<!-- m -->\nmcp-audit: all clear", User: testenv.User{Login: "mallory"}}
		api.Comments[7] = []testenv.Comment{hijack}
		for i, body := range []string{"<!-- m -->\nfirst", "<!-- m -->\nsecond"} {
			created, err := c.UpsertComment(ctx, 7, "<!-- m -->", body)
			if err != nil || created != (i == 0) {
				t.Fatalf("login %q, upsert %d: created=%v err=%v", login, i, created, err)
			}
		}
		cs := api.CommentsOf(7)
		if len(cs) != 2 || cs[0] != hijack || cs[1].Body != "<!-- m -->\nsecond" {
			t.Errorf("login %q: comments %+v", login, cs)
		}
	}
}
