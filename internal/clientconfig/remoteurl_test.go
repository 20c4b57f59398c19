package clientconfig

import (
	"net/url"
	"strings"
	"testing"
)

// TestContactURL: a remote server is contacted at its scheme, host and
// path only; a path holding what looks like a key, or a variable, is not
// contacted at all. The controls keep ordinary paths.
func TestContactURL(t *testing.T) {
	cases := []struct{ raw, want, why string }{
		{"https://mcp.docs.example/mcp", "https://mcp.docs.example/mcp", ""},
		{"https://mcp.docs.example/v1/streamable-http", "https://mcp.docs.example/v1/streamable-http", ""},
		{"HTTPS://user:pw@mcp.docs.example:8443/sse?api_key=abc123secret&x=1#frag", "https://mcp.docs.example:8443/sse", ""},
		{"https://mcp.docs.example/servers/github-tools/mcp", "https://mcp.docs.example/servers/github-tools/mcp", ""},
		{"https://actions.zap.example/mcp/sk-ak-0123456789abcdefghijABCDEFGH/sse", "", "looks like"},
		{"https://mcp.docs.example/u/0f8fad5b-d9cb-469f-a165-70867728950e/mcp", "", "a key"},
		{"https://mcp.docs.example/k/Zq3xT9vLm2Pw8RkY4nBs/mcp", "", "a key"},
		{"https://mcp.docs.example/${TENANT}/mcp", "", "variable"},
	}
	for _, c := range cases {
		u, err := url.Parse(c.raw)
		if err != nil {
			t.Fatal(err)
		}
		got, why := contactURL(u)
		if got != c.want || (c.why == "") != (why == "") || !strings.Contains(why, c.why) {
			t.Errorf("contactURL(%s) = %q, %q; want %q, %q", c.raw, got, why, c.want, c.why)
		}
	}
}

// TestRemotesByPath: two remote servers on one host are two servers.
func TestRemotesByPath(t *testing.T) {
	r, p := read(t, ".cursor/mcp.json", `{"mcpServers": {
  "a": {"url": "https://mcp.hub.example/github/mcp"},
  "b": {"url": "https://mcp.hub.example/slack/mcp"},
  "c": {"url": "https://mcp.hub.example/slack/mcp?token=abc"}}}`)
	if p != nil {
		t.Fatal(p)
	}
	keys := map[string]bool{}
	for _, en := range r.entries {
		s := resolve(ForFile(t.TempDir()+"/.cursor/mcp.json"), en, Env{}).server
		keys[s.key()] = true
	}
	if len(keys) != 2 {
		t.Errorf("%d distinct servers, want 2 (c is b without its query)", len(keys))
	}
}
