package testenv

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// GitHub is a fake of the REST endpoints mcp-audit uses: issue comments,
// git refs/commits/blobs/trees and pull requests. It keeps state in memory
// and checks the token on every request.
type GitHub struct {
	URL   string
	Token string

	mu       sync.Mutex
	Comments map[int][]Comment // issue number -> comments
	Refs     map[string]string // "heads/main" -> sha
	Files    map[string][]byte // path -> content of the last proposed commit
	Pulls    []Pull
	Requests []string // "METHOD path"
	nextID   int
}

// Comment is a stored issue comment.
type Comment struct {
	ID   int64  `json:"id"`
	Body string `json:"body"`
}

// Pull is a stored pull request.
type Pull struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
	Body   string `json:"body"`
	Head   string `json:"-"`
	Base   string `json:"-"`
	State  string `json:"state"`
}

// NewGitHub starts the fake; it stops when the test ends.
func NewGitHub(t testing.TB, token string) *GitHub {
	g := &GitHub{Token: token, Comments: map[int][]Comment{}, Refs: map[string]string{"heads/main": "base000"},
		Files: map[string][]byte{}, nextID: 100}
	srv := httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(srv.Close)
	g.URL = srv.URL + "/"
	return g
}

var (
	reComments = regexp.MustCompile(`^/repos/[^/]+/[^/]+/issues/(\d+)/comments$`)
	reComment  = regexp.MustCompile(`^/repos/[^/]+/[^/]+/issues/comments/(\d+)$`)
	reGetRef   = regexp.MustCompile(`^/repos/[^/]+/[^/]+/git/ref/(.+)$`)
	reRefs     = regexp.MustCompile(`^/repos/[^/]+/[^/]+/git/refs(/.+)?$`)
	reCommit   = regexp.MustCompile(`^/repos/[^/]+/[^/]+/git/commits(/.+)?$`)
	reBlobs    = regexp.MustCompile(`^/repos/[^/]+/[^/]+/git/blobs$`)
	reTrees    = regexp.MustCompile(`^/repos/[^/]+/[^/]+/git/trees$`)
	rePulls    = regexp.MustCompile(`^/repos/[^/]+/[^/]+/pulls(/(\d+))?$`)
)

func (g *GitHub) id() int {
	g.nextID++
	return g.nextID
}

func (g *GitHub) serve(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.Requests = append(g.Requests, r.Method+" "+r.URL.Path)
	if r.Header.Get("Authorization") != "Bearer "+g.Token {
		http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
		return
	}
	var in map[string]any
	if r.Body != nil {
		b, _ := io.ReadAll(io.LimitReader(r.Body, 32<<20))
		json.Unmarshal(b, &in)
	}
	reply := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	p := r.URL.Path
	switch {
	case reComments.MatchString(p):
		n, _ := strconv.Atoi(reComments.FindStringSubmatch(p)[1])
		if r.Method == http.MethodGet {
			reply(200, g.Comments[n])
			return
		}
		c := Comment{ID: int64(g.id()), Body: fmt.Sprint(in["body"])}
		g.Comments[n] = append(g.Comments[n], c)
		reply(201, c)
	case reComment.MatchString(p) && r.Method == http.MethodPatch:
		id, _ := strconv.ParseInt(reComment.FindStringSubmatch(p)[1], 10, 64)
		for n, cs := range g.Comments {
			for i := range cs {
				if cs[i].ID == id {
					cs[i].Body = fmt.Sprint(in["body"])
					g.Comments[n] = cs
					reply(200, cs[i])
					return
				}
			}
		}
		http.NotFound(w, r)
	case reGetRef.MatchString(p) && r.Method == http.MethodGet:
		ref := reGetRef.FindStringSubmatch(p)[1]
		sha, ok := g.Refs[ref]
		if !ok {
			reply(404, map[string]string{"message": "Not Found"})
			return
		}
		reply(200, map[string]any{"ref": "refs/" + ref, "object": map[string]string{"sha": sha, "type": "commit"}})
	case reRefs.MatchString(p):
		if r.Method == http.MethodPost {
			ref := strings.TrimPrefix(fmt.Sprint(in["ref"]), "refs/")
			g.Refs[ref] = fmt.Sprint(in["sha"])
			reply(201, map[string]any{"ref": "refs/" + ref, "object": map[string]string{"sha": g.Refs[ref]}})
			return
		}
		ref := strings.TrimPrefix(reRefs.FindStringSubmatch(p)[1], "/")
		g.Refs[ref] = fmt.Sprint(in["sha"])
		reply(200, map[string]any{"ref": "refs/" + ref, "object": map[string]string{"sha": g.Refs[ref]}})
	case reCommit.MatchString(p):
		if r.Method == http.MethodGet {
			sha := strings.TrimPrefix(reCommit.FindStringSubmatch(p)[1], "/")
			reply(200, map[string]any{"sha": sha, "tree": map[string]string{"sha": "tree-" + sha}})
			return
		}
		reply(201, map[string]any{"sha": fmt.Sprintf("commit%d", g.id()), "tree": map[string]any{"sha": in["tree"]}})
	case reBlobs.MatchString(p):
		b, _ := base64.StdEncoding.DecodeString(fmt.Sprint(in["content"]))
		sha := fmt.Sprintf("blob%d", g.id())
		g.Files[sha] = b
		reply(201, map[string]string{"sha": sha})
	case reTrees.MatchString(p):
		tree, _ := in["tree"].([]any)
		for _, e := range tree {
			m, _ := e.(map[string]any)
			path, sha := fmt.Sprint(m["path"]), fmt.Sprint(m["sha"])
			g.Files[path] = g.Files[sha]
		}
		reply(201, map[string]string{"sha": fmt.Sprintf("tree%d", g.id())})
	case rePulls.MatchString(p):
		num := rePulls.FindStringSubmatch(p)[2]
		switch {
		case r.Method == http.MethodGet && num == "":
			var out []Pull
			for _, pr := range g.Pulls {
				if pr.State == "open" && (r.URL.Query().Get("head") == "" || strings.HasSuffix(r.URL.Query().Get("head"), ":"+pr.Head)) {
					out = append(out, pr)
				}
			}
			if out == nil {
				out = []Pull{}
			}
			reply(200, out)
		case r.Method == http.MethodPost:
			pr := Pull{Number: g.id(), Title: fmt.Sprint(in["title"]), Body: fmt.Sprint(in["body"]),
				Head: fmt.Sprint(in["head"]), Base: fmt.Sprint(in["base"]), State: "open"}
			g.Pulls = append(g.Pulls, pr)
			reply(201, map[string]any{"number": pr.Number, "html_url": fmt.Sprintf("https://github.example/pull/%d", pr.Number)})
		case r.Method == http.MethodPatch:
			n, _ := strconv.Atoi(num)
			for i := range g.Pulls {
				if g.Pulls[i].Number == n {
					g.Pulls[i].Title, g.Pulls[i].Body = fmt.Sprint(in["title"]), fmt.Sprint(in["body"])
					reply(200, map[string]any{"number": n, "html_url": fmt.Sprintf("https://github.example/pull/%d", n)})
					return
				}
			}
			http.NotFound(w, r)
		}
	default:
		reply(404, map[string]string{"message": "Not Found: " + r.Method + " " + p})
	}
}

// Snapshot returns a copy of the comments of an issue.
func (g *GitHub) CommentsOf(n int) []Comment {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]Comment(nil), g.Comments[n]...)
}
