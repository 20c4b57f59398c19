package sink

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// fakeTime is the one time the HTTP answers carry: a body must not change
// from run to run.
const fakeTime = "2024-06-01T12:00:00Z"

// shapeResponse answers a request no canned response covers with what API
// clients expect of its path, so that a server's code goes on past its
// first API call: GraphQL data shaped from the query's selections, a list
// envelope (empty arrays under the usual keys, pagination that ends) for
// list-like paths, an object with an id, a name and timestamps for item
// paths, 201 with the posted fields and an id for creations. Everything
// is derived from the request alone: the same request, the same bytes.
// An object answer also carries the fields the package's code reads
// (ReadFields) that it lacks.
func shapeResponse(req *http.Request, body []byte, fields []string) sinklog.Response {
	u := req.URL
	if u == nil {
		u = &url.URL{Path: "/"}
	}
	host := strings.ToLower(req.Host)
	if h, _, ok := strings.Cut(host, ":"); ok {
		host = h
	}
	if q, op, ok := graphQLRequest(req, u, body); ok {
		return jsonResponse(200, graphQLAnswer(q, op))
	}
	if batch, ok := graphQLBatch(req, u, body); ok {
		return jsonResponse(200, batch)
	}
	segs := pathSegments(u.Path)
	last := ""
	if len(segs) > 0 {
		last = strings.ToLower(segs[len(segs)-1])
	}
	if r, ok := documentResponse(req, last); ok {
		return r
	}
	id := pathID(host + u.Path)
	switch {
	case req.Method == http.MethodPost && isCollection(last) && !isAction(last):
		obj := echoFields(body)
		for k, v := range itemObject(singular(last), id) {
			if _, given := obj[k]; !given || k == "id" || strings.HasSuffix(k, "_at") {
				obj[k] = v
			}
		}
		FillFields(obj, fields, obj["id"])
		return jsonResponse(201, obj)
	case req.Method == http.MethodDelete:
		return jsonResponse(200, map[string]any{"ok": true, "success": true, "deleted": true, "id": idFor(last, id)})
	case listLike(last, u.Query()):
		if bareLists(host, u.Path) && last != "search" && !strings.HasPrefix(u.Path, "/search/") {
			return jsonResponse(200, []any{})
		}
		env := listEnvelope(last, u.Query())
		FillFields(env, fields, id)
		return jsonResponse(200, env)
	}
	obj := itemObject(singular(orStr(last, "item")), idFor(last, id))
	FillFields(obj, fields, obj["id"])
	return jsonResponse(200, obj)
}

func jsonResponse(status int, v any) sinklog.Response {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return sinklog.Response{Status: status, ContentType: "application/json", Body: strings.TrimSuffix(b.String(), "\n")}
}

func pathSegments(p string) []string {
	var out []string
	for _, s := range strings.Split(p, "/") {
		if s != "" && len(out) < 64 {
			out = append(out, s)
		}
	}
	return out
}

// pathID is a stable number for a path: the id of the object it names.
func pathID(s string) int {
	h := fnv.New32a()
	h.Write([]byte(s))
	return 1000 + int(h.Sum32()%9000)
}

var reWord = regexp.MustCompile(`^[a-z_]+$`)

var reIDSeg = regexp.MustCompile(`^(?:[0-9]+|[0-9a-fA-F]{8,}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$`)

// idFor echoes an id the path ends with (a number as a number), else the
// path's stable number.
func idFor(last string, id int) any {
	if reIDSeg.MatchString(last) {
		if n, err := strconv.Atoi(last); err == nil {
			return n
		}
		return last
	}
	return id
}

// isCollection: a plural resource name, such as users or repos.
func isCollection(seg string) bool {
	if reIDSeg.MatchString(seg) || len(seg) < 3 || strings.ContainsAny(seg, ".") {
		return false
	}
	switch seg {
	case "people", "children", "data", "media", "feed", "feeds", "news":
		return true
	case "status", "address", "access", "process", "analysis", "alias", "canvas", "class", "bus", "gas", "campus", "corpus", "ssl", "dns", "aws", "gcs", "sms":
		return false
	}
	return strings.HasSuffix(seg, "s") && !strings.HasSuffix(seg, "ss") && !strings.HasSuffix(seg, "us") && !strings.HasSuffix(seg, "is")
}

// isAction: a path that runs something rather than creating a resource
// (a POST there is answered 200, not 201).
func isAction(seg string) bool {
	for _, w := range []string{"search", "query", "queries", "completions", "embeddings", "chat", "predictions", "generate", "translat", "classif", "moderations", "rpc"} {
		if strings.Contains(seg, w) {
			return true
		}
	}
	return false
}

// listLike: a plural last segment, a search or list endpoint, or a query
// that pages.
func listLike(last string, q url.Values) bool {
	for _, k := range []string{"page", "per_page", "page_size", "pagesize", "limit", "offset", "cursor", "page_token", "pagetoken", "starting_after", "after", "start", "max_results", "maxresults", "top"} {
		for qk := range q {
			if strings.EqualFold(qk, k) {
				return true
			}
		}
	}
	return isCollection(last) || strings.Contains(last, "search") || strings.Contains(last, "list") || last == "query" || last == "find" || last == "all"
}

// bareLists are the APIs whose list endpoints answer a bare JSON array:
// GitHub's REST API (and GitHub Enterprise's /api/v3), GitLab's /api/v4.
func bareLists(host, p string) bool {
	return host == "api.github.com" || strings.HasPrefix(p, "/api/v3/") || strings.HasPrefix(p, "/api/v4/")
}

// listEnvelope is an empty page under the keys list APIs use, with
// pagination that says there is no more.
func listEnvelope(last string, q url.Values) map[string]any {
	page := atoiOr(q.Get("page"), 1)
	per := atoiOr(orStr(q.Get("per_page"), orStr(q.Get("limit"), q.Get("page_size"))), 30)
	env := map[string]any{
		"data": []any{}, "items": []any{}, "results": []any{}, "records": []any{}, "entries": []any{},
		"total_count": 0, "total": 0, "count": 0, "incomplete_results": false,
		"has_more": false, "hasMore": false, "next": nil, "next_cursor": nil, "nextCursor": nil, "next_page_token": nil, "nextPageToken": nil,
		"previous": nil, "page": page, "per_page": per, "object": "list", "ok": true,
	}
	if isCollection(last) && reWord.MatchString(last) {
		if _, taken := env[last]; !taken {
			env[last] = []any{}
		}
	}
	return env
}

// itemObject is one resource: an id (and the global node id GitHub's
// clients require), names, links, fixed timestamps, and
// the account that owns it under the names APIs use (owner, user,
// author).
func itemObject(kind string, id any) map[string]any {
	name := "example-" + kind
	account := func() map[string]any {
		return map[string]any{"id": 1, "node_id": "MDQ6VXNlcjE=", "login": "example", "name": "example", "type": "User",
			"url": "https://example.com/example", "html_url": "https://example.com/example", "avatar_url": "https://example.com/avatar.png"}
	}
	return map[string]any{"id": id, "node_id": fmt.Sprintf("MDQ6%v", id), "name": name, "title": name, "description": "", "status": "active",
		"url": "https://example.com/" + kind, "html_url": "https://example.com/" + kind,
		"owner": account(), "user": account(), "author": account(),
		"created_at": fakeTime, "updated_at": fakeTime, "createdAt": fakeTime, "updatedAt": fakeTime, "ok": true, "success": true}
}

func singular(seg string) string {
	seg = strings.ToLower(seg)
	switch {
	case reIDSeg.MatchString(seg) || seg == "":
		return "item"
	case strings.HasSuffix(seg, "ies"):
		return strings.TrimSuffix(seg, "ies") + "y"
	case isCollection(seg):
		return strings.TrimSuffix(seg, "s")
	}
	return seg
}

// echoFields keeps the top-level scalar fields of a posted JSON object,
// bounded, as a created resource echoes what it was given.
func echoFields(body []byte) map[string]any {
	out := map[string]any{}
	var in map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&in) != nil {
		return out
	}
	for k, v := range in {
		if len(out) >= 32 || len(k) > 64 {
			continue
		}
		switch x := v.(type) {
		case string:
			out[k] = textClip(x, 256)
		case json.Number, bool:
			out[k] = x
		}
	}
	return out
}

// examplePage is the page every HTML request gets: a page a browser tool
// can act on, as on a real site (a main region to click, hover, drag or
// type into, a summary, links, a form with a text field, a choice and a
// button), or its calls fail on elements no page has: @playwright/mcp's
// click, type, hover, drag and snapshot of "#main" all failed on a page
// of a heading and a paragraph. Nothing in it loads anything.
const examplePage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Example page</title></head>
<body>
<header><h1>Example page</h1><nav><a href="/docs.html">Docs</a> <a href="/about.html">About</a></nav></header>
<main><div id="main" contenteditable="true" draggable="true">An example page.</div>
<p class="summary">A summary of the example page.</p>
<form id="contact" action="/submit.html" method="get">
<label for="name">Name</label> <input id="name" name="name" type="text">
<label for="topic">Topic</label> <select id="topic" name="topic"><option>General</option><option>Support</option></select>
<label for="message">Message</label> <textarea id="message" name="message"></textarea>
<button type="submit">Send</button>
</form></main>
</body></html>
`

// documentResponse answers requests for pages and files rather than API
// objects: HTML for a browser's Accept or an .html path, text for .txt
// and .md.
func documentResponse(req *http.Request, last string) (sinklog.Response, bool) {
	accept := strings.ToLower(req.Header.Get("Accept"))
	switch {
	case strings.HasSuffix(last, ".html") || strings.HasSuffix(last, ".htm") || strings.Contains(accept, "text/html") && !strings.Contains(accept, "json"):
		return sinklog.Response{Status: 200, ContentType: "text/html; charset=utf-8", Body: examplePage}, true
	case strings.HasSuffix(last, ".txt") || strings.HasSuffix(last, ".md"):
		return sinklog.Response{Status: 200, ContentType: "text/plain; charset=utf-8", Body: "Example text.\n"}, true
	}
	return sinklog.Response{}, false
}
