package sink

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// jsPath reads a value the way client code does: "items", "data.viewer.login",
// "choices.0.message" ("" is the whole body). ok is false where JavaScript
// would read undefined.
func jsPath(v any, path string) (any, bool) {
	if path == "" {
		return v, true
	}
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[k]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// expect is what a client needs of one value: a JavaScript typeof-like
// kind ("array", "object", "number", "string", "boolean", "null"), or an
// exact value.
type expect struct {
	path, kind string
	value      any
}

func kindOf(v any) string {
	switch v.(type) {
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case float64:
		return "number"
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "?"
}

// TestShapedAnswersMeetClientExpectations measures which expectations of
// common API clients the shaped answers meet: each row is one request and
// what that client's code reads from the answer (from the clients' and
// APIs' documented response shapes), with whether the sink meets it
// today. A row that changes either way fails, so the measure stays true;
// the count is logged.
func TestShapedAnswersMeetClientExpectations(t *testing.T) {
	gql := func(q string) string { b, _ := json.Marshal(map[string]string{"query": q}); return string(b) }
	rows := []struct {
		client, method, host, target, body string
		status                             int
		want                               []expect
		met                                bool
	}{
		{"GitHub: list issues (an array)", "GET", "api.github.com", "/repos/o/r/issues?state=open", "", 200, []expect{{path: "", kind: "array"}}, true},
		{"GitHub: search (total_count, items)", "GET", "api.github.com", "/search/repositories?q=x", "", 200,
			[]expect{{path: "total_count", kind: "number"}, {path: "items", kind: "array"}, {path: "incomplete_results", kind: "boolean"}}, true},
		{"GitHub: get a repository", "GET", "api.github.com", "/repos/o/r", "", 200, []expect{{path: "id", kind: "number"}, {path: "name", kind: "string"}}, true},
		{"GitHub: a repository's owner login", "GET", "api.github.com", "/repos/o/r", "", 200, []expect{{path: "owner.login", kind: "string"}, {path: "html_url", kind: "string"}}, true},
		{"GitHub: create an issue", "POST", "api.github.com", "/repos/o/r/issues", `{"title":"t"}`, 201,
			[]expect{{path: "id", kind: "number"}, {path: "title", value: "t"}}, true},
		{"GitHub Enterprise: list pulls", "GET", "ghe.example", "/api/v3/repos/o/r/pulls", "", 200, []expect{{path: "", kind: "array"}}, true},
		{"Stripe: list customers", "GET", "api.stripe.com", "/v1/customers?limit=3", "", 200,
			[]expect{{path: "data", kind: "array"}, {path: "has_more", value: false}, {path: "object", value: "list"}}, true},
		{"Stripe: create a customer", "POST", "api.stripe.com", "/v1/customers", `{"email":"a@example.com"}`, 201,
			[]expect{{path: "id", kind: "number"}, {path: "email", value: "a@example.com"}}, true},
		{"Notion: search", "POST", "api.notion.com", "/v1/search", `{"query":"x"}`, 200,
			[]expect{{path: "results", kind: "array"}, {path: "has_more", value: false}, {path: "next_cursor", kind: "null"}}, true},
		{"Notion: query a database", "POST", "api.notion.com", "/v1/databases/0a1b2c3d4e5f60718293a4b5c6d7e8f9/query", `{}`, 200,
			[]expect{{path: "results", kind: "array"}}, true},
		{"Slack: post a message", "POST", "slack.com", "/api/chat.postMessage", `{"channel":"C1","text":"hi"}`, 200, []expect{{path: "ok", value: true}}, true},
		{"Slack: list channels (channels)", "GET", "slack.com", "/api/conversations.list", "", 200,
			[]expect{{path: "ok", value: true}, {path: "channels", kind: "array"}}, false},
		{"OpenAI: list models", "GET", "api.openai.com", "/v1/models", "", 200, []expect{{path: "data", kind: "array"}, {path: "object", value: "list"}}, true},
		{"OpenAI: a chat completion", "POST", "api.openai.com", "/v1/chat/completions", `{"model":"m"}`, 200,
			[]expect{{path: "choices.0.message.content", kind: "string"}}, false},
		{"Jira: search (total)", "GET", "jira.example", "/rest/api/3/search?jql=x", "", 200, []expect{{path: "total", kind: "number"}}, true},
		{"Jira: search (issues)", "GET", "jira.example", "/rest/api/3/search?jql=x", "", 200, []expect{{path: "issues", kind: "array"}}, false},
		{"paged list: ?page=2", "GET", "api.example", "/v2/things?page=2&per_page=10", "", 200,
			[]expect{{path: "page", value: float64(2)}, {path: "per_page", value: float64(10)}, {path: "items", kind: "array"}, {path: "things", kind: "array"}}, true},
		{"item by id", "GET", "api.example", "/api/users/42", "", 200, []expect{{path: "id", value: float64(42)}, {path: "created_at", kind: "string"}}, true},
		{"delete", "DELETE", "api.example", "/api/users/42", "", 200, []expect{{path: "ok", value: true}}, true},
		{"Tavily/Exa: POST /search (results)", "POST", "api.tavily.com", "/search", `{"query":"x"}`, 200, []expect{{path: "results", kind: "array"}}, true},
		{"Brave: web search (web.results)", "GET", "api.search.brave.com", "/res/v1/web/search?q=x", "", 200, []expect{{path: "web.results", kind: "array"}}, false},
		{"Firecrawl: scrape (data.markdown)", "POST", "api.firecrawl.dev", "/v1/scrape", `{"url":"https://example.com"}`, 200,
			[]expect{{path: "success", value: true}, {path: "data.markdown", kind: "string"}}, false},
		{"GraphQL: Linear issues connection", "POST", "api.linear.app", "/graphql",
			gql(`query Issues($n: Int) { issues(first: $n) { nodes { id title } pageInfo { hasNextPage endCursor } } }`), 200,
			[]expect{{path: "data.issues.nodes", kind: "array"}, {path: "data.issues.pageInfo.hasNextPage", value: false}, {path: "data.issues.pageInfo.endCursor", kind: "null"}}, true},
		{"GraphQL: GitHub viewer with a fragment and an alias", "POST", "api.github.com", "/graphql",
			gql(`fragment R on Repository { name stargazerCount } query { me: viewer { login repositories(first: 5) { totalCount nodes { ...R } } } }`), 200,
			[]expect{{path: "data.me.login", kind: "string"}, {path: "data.me.repositories.totalCount", value: float64(0)}, {path: "data.me.repositories.nodes", kind: "array"}}, true},
		{"GraphQL: a plural field is a list", "POST", "gql.example", "/v1/graphql", gql(`{ projects { id name } }`), 200,
			[]expect{{path: "data.projects", kind: "array"}}, true},
		{"a browser page", "GET", "www.example.com", "/", "", 200, nil, true},
	}
	met := 0
	for _, tc := range rows {
		t.Run(tc.client, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, "http://"+tc.host+tc.target, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if tc.client == "a browser page" {
				req.Header.Set("Accept", "text/html,application/xhtml+xml")
			}
			resp := shapeResponse(req, []byte(tc.body), nil)
			ok := resp.Status == tc.status
			var body any
			if strings.HasPrefix(resp.ContentType, "application/json") {
				ok = ok && json.Unmarshal([]byte(resp.Body), &body) == nil
			} else {
				ok = ok && tc.want == nil && strings.HasPrefix(resp.ContentType, "text/html")
			}
			for _, w := range tc.want {
				v, found := jsPath(body, w.path)
				switch {
				case !found:
					ok = false
				case w.kind != "" && kindOf(v) != w.kind:
					ok = false
				case w.kind == "" && v != w.value:
					ok = false
				}
			}
			if ok {
				met++
			}
			if ok != tc.met {
				t.Errorf("met = %v, recorded %v; answer %d %s", ok, tc.met, resp.Status, resp.Body)
			}
		})
	}
	t.Logf("%d of %d client expectations met", met, len(rows))
}

// TestShapedAnswersAreDeterministic: the same request gets the same bytes
// (manifests must not change between identical runs); another path
// another id.
func TestShapedAnswersAreDeterministic(t *testing.T) {
	answer := func(target string) string {
		req, _ := http.NewRequest("POST", "https://api.example"+target, strings.NewReader(`{"name":"n","nested":{"x":1}}`))
		return shapeResponse(req, []byte(`{"name":"n","nested":{"x":1}}`), nil).Body
	}
	a, b, c := answer("/v1/widgets"), answer("/v1/widgets"), answer("/v1/gadgets")
	if a != b {
		t.Errorf("two answers to one request:\n%s\n%s", a, b)
	}
	var x, y map[string]any
	json.Unmarshal([]byte(a), &x)
	json.Unmarshal([]byte(c), &y)
	if x["id"] == y["id"] || x["name"] != "n" || x["nested"] != nil {
		t.Errorf("ids %v %v, echoed %v", x["id"], y["id"], x)
	}
}

// TestSinkAnswersHTTPClientsShaped: net/http, over one kept-alive
// connection to the sink, gets a list envelope, then a HEAD answer with
// no body (so the next answer on the connection still parses), then 201
// for a creation.
func TestSinkAnswersHTTPClientsShaped(t *testing.T) {
	fs := startFake(t, "api.example", 80)
	c := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
	get := func(method, path, body string) (int, map[string]any) {
		req, _ := http.NewRequest(method, "http://"+fs.addr+path, strings.NewReader(body))
		req.Host = "api.example"
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		var v map[string]any
		json.NewDecoder(resp.Body).Decode(&v)
		return resp.StatusCode, v
	}
	if st, v := get("GET", "/v1/things?page=1", ""); st != 200 || v["has_more"] != false {
		t.Errorf("list: %d %v", st, v)
	}
	if st, v := get("HEAD", "/v1/things", ""); st != 200 || v != nil {
		t.Errorf("head: %d %v", st, v)
	}
	if st, v := get("POST", "/v1/things", `{"name":"x"}`); st != 201 || v["name"] != "x" {
		t.Errorf("create: %d %v", st, v)
	}
	n := 0
	for _, e := range fs.log.events(t) {
		if e.Kind == "tcp" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d connections, want the three requests on one", n)
	}
}
