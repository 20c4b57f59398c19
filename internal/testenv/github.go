package testenv

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
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
	// Login is who the token is (GET /user) and the author of the
	// comments it writes. Empty, the default, is the workflow's
	// GITHUB_TOKEN: GET /user is refused and comments are by
	// github-actions[bot].
	Login string

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
	User User   `json:"user"`
}

// User is a comment's author.
type User struct {
	Login string `json:"login"`
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

// NewGitHub starts the fake on loopback; it stops when the test ends.
func NewGitHub(t testing.TB, token string) *GitHub { return NewGitHubAt(t, token, "127.0.0.1:0") }

// NewGitHubAt starts the fake listening on addr (a container engine's
// bridge address, for tests that run the Action in a container).
func NewGitHubAt(t testing.TB, token, addr string) *GitHub {
	g := &GitHub{Token: token, Comments: map[int][]Comment{}, Refs: map[string]string{"heads/main": "base000"},
		Files: map[string][]byte{}, nextID: 100}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("fake GitHub listener: %v", err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(g.serve))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	g.URL = srv.URL + "/"
	return g
}

// route is one endpoint of the fake. The first route whose method (any,
// when empty) and pattern match serves the request.
type route struct {
	method  string
	re      *regexp.Regexp
	handler func(*GitHub, *call)
}

var routes = []route{
	{http.MethodGet, regexp.MustCompile(`^/user$`), (*GitHub).user},
	{"", regexp.MustCompile(`^/repos/[^/]+/[^/]+/issues/(\d+)/comments$`), (*GitHub).comments},
	{http.MethodPatch, regexp.MustCompile(`^/repos/[^/]+/[^/]+/issues/comments/(\d+)$`), (*GitHub).editComment},
	{http.MethodGet, regexp.MustCompile(`^/repos/[^/]+/[^/]+/git/ref/(.+)$`), (*GitHub).getRef},
	{"", regexp.MustCompile(`^/repos/[^/]+/[^/]+/git/refs(/.+)?$`), (*GitHub).setRef},
	{"", regexp.MustCompile(`^/repos/[^/]+/[^/]+/git/commits(/.+)?$`), (*GitHub).commits},
	{"", regexp.MustCompile(`^/repos/[^/]+/[^/]+/git/blobs$`), (*GitHub).blob},
	{"", regexp.MustCompile(`^/repos/[^/]+/[^/]+/git/trees$`), (*GitHub).tree},
	{"", regexp.MustCompile(`^/repos/[^/]+/[^/]+/pulls(/(\d+))?$`), (*GitHub).pulls},
}

// call is one request being served: its decoded JSON body and the
// pattern's submatches.
type call struct {
	w     http.ResponseWriter
	r     *http.Request
	in    map[string]any
	match []string
}

func (c *call) reply(status int, v any) {
	c.w.Header().Set("Content-Type", "application/json")
	c.w.WriteHeader(status)
	json.NewEncoder(c.w).Encode(v)
}

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
	c := &call{w: w, r: r, in: in}
	for _, rt := range routes {
		if rt.method != "" && rt.method != r.Method {
			continue
		}
		if c.match = rt.re.FindStringSubmatch(r.URL.Path); c.match != nil {
			rt.handler(g, c)
			return
		}
	}
	c.reply(404, map[string]string{"message": "Not Found: " + r.Method + " " + r.URL.Path})
}

// comments lists (GET) or adds a comment to an issue.
func (g *GitHub) comments(c *call) {
	n, _ := strconv.Atoi(c.match[1])
	if c.r.Method == http.MethodGet {
		c.reply(200, g.Comments[n])
		return
	}
	cm := Comment{ID: int64(g.id()), Body: fmt.Sprint(c.in["body"]), User: User{Login: g.author()}}
	g.Comments[n] = append(g.Comments[n], cm)
	c.reply(201, cm)
}

// user answers GET /user as GitHub does for the token: the login, or
// 403 for an installation token.
func (g *GitHub) user(c *call) {
	if g.Login == "" {
		c.reply(http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration"})
		return
	}
	c.reply(200, User{Login: g.Login})
}

func (g *GitHub) author() string {
	if g.Login == "" {
		return "github-actions[bot]"
	}
	return g.Login
}

// editComment edits a comment. Like GitHub for a token with write
// access, it edits anybody's: choosing which is the client's job.
func (g *GitHub) editComment(c *call) {
	id, _ := strconv.ParseInt(c.match[1], 10, 64)
	for n, cs := range g.Comments {
		for i := range cs {
			if cs[i].ID == id {
				cs[i].Body = fmt.Sprint(c.in["body"])
				g.Comments[n] = cs
				c.reply(200, cs[i])
				return
			}
		}
	}
	http.NotFound(c.w, c.r)
}

func (g *GitHub) getRef(c *call) {
	ref := c.match[1]
	sha, ok := g.Refs[ref]
	if !ok {
		c.reply(404, map[string]string{"message": "Not Found"})
		return
	}
	c.reply(200, map[string]any{"ref": "refs/" + ref, "object": map[string]string{"sha": sha, "type": "commit"}})
}

// setRef creates (POST) or moves a ref.
func (g *GitHub) setRef(c *call) {
	if c.r.Method == http.MethodPost {
		ref := strings.TrimPrefix(fmt.Sprint(c.in["ref"]), "refs/")
		g.Refs[ref] = fmt.Sprint(c.in["sha"])
		c.reply(201, map[string]any{"ref": "refs/" + ref, "object": map[string]string{"sha": g.Refs[ref]}})
		return
	}
	ref := strings.TrimPrefix(c.match[1], "/")
	g.Refs[ref] = fmt.Sprint(c.in["sha"])
	c.reply(200, map[string]any{"ref": "refs/" + ref, "object": map[string]string{"sha": g.Refs[ref]}})
}

// commits reads (GET) or creates a commit.
func (g *GitHub) commits(c *call) {
	if c.r.Method == http.MethodGet {
		sha := strings.TrimPrefix(c.match[1], "/")
		c.reply(200, map[string]any{"sha": sha, "tree": map[string]string{"sha": "tree-" + sha}})
		return
	}
	c.reply(201, map[string]any{"sha": fmt.Sprintf("commit%d", g.id()), "tree": map[string]any{"sha": c.in["tree"]}})
}

// blob stores content under a new blob sha, for tree to name.
func (g *GitHub) blob(c *call) {
	b, _ := base64.StdEncoding.DecodeString(fmt.Sprint(c.in["content"]))
	sha := fmt.Sprintf("blob%d", g.id())
	g.Files[sha] = b
	c.reply(201, map[string]string{"sha": sha})
}

// tree records each entry's blob content under its path in Files.
func (g *GitHub) tree(c *call) {
	tree, _ := c.in["tree"].([]any)
	for _, e := range tree {
		m, _ := e.(map[string]any)
		path, sha := fmt.Sprint(m["path"]), fmt.Sprint(m["sha"])
		g.Files[path] = g.Files[sha]
	}
	c.reply(201, map[string]string{"sha": fmt.Sprintf("tree%d", g.id())})
}

// pulls lists open pull requests (GET, optionally by head), opens one
// (POST) or edits one (PATCH).
func (g *GitHub) pulls(c *call) {
	num := c.match[2]
	switch {
	case c.r.Method == http.MethodGet && num == "":
		g.listPulls(c)
	case c.r.Method == http.MethodPost:
		pr := Pull{Number: g.id(), Title: fmt.Sprint(c.in["title"]), Body: fmt.Sprint(c.in["body"]),
			Head: fmt.Sprint(c.in["head"]), Base: fmt.Sprint(c.in["base"]), State: "open"}
		g.Pulls = append(g.Pulls, pr)
		c.reply(201, map[string]any{"number": pr.Number, "html_url": fmt.Sprintf("https://github.example/pull/%d", pr.Number)})
	case c.r.Method == http.MethodPatch:
		g.editPull(c, num)
	}
}

func (g *GitHub) listPulls(c *call) {
	head := c.r.URL.Query().Get("head")
	out := []Pull{}
	for _, pr := range g.Pulls {
		if pr.State == "open" && (head == "" || strings.HasSuffix(head, ":"+pr.Head)) {
			out = append(out, pr)
		}
	}
	c.reply(200, out)
}

func (g *GitHub) editPull(c *call, num string) {
	n, _ := strconv.Atoi(num)
	for i := range g.Pulls {
		if g.Pulls[i].Number == n {
			g.Pulls[i].Title, g.Pulls[i].Body = fmt.Sprint(c.in["title"]), fmt.Sprint(c.in["body"])
			c.reply(200, map[string]any{"number": n, "html_url": fmt.Sprintf("https://github.example/pull/%d", n)})
			return
		}
	}
	http.NotFound(c.w, c.r)
}

// CommentsOf returns a copy of the comments of an issue.
func (g *GitHub) CommentsOf(n int) []Comment {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]Comment(nil), g.Comments[n]...)
}
