package mcpclient

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Two sessions of one server, one per era, as an auditor compares them.

// surface opens a transcript's session with proto and returns its tools
// (each whole, by name) and the instructions.
func surface(t *testing.T, name, proto string) ([]string, string) {
	t.Helper()
	var c *Client
	if strings.Contains(name, "-http-") {
		c, _, _ = replayHTTP(t, name, Options{})
	} else {
		c, _ = replayStdio(t, name, Options{})
	}
	o, err := c.Open(openCtx(t), OpenOptions{Protocol: proto})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if o.Era == EraModern {
		_, _ = c.Call(openCtx(t), "server/discover", nil) // as captured
	}
	tools, err := c.List(openCtx(t), "tools/list", "tools")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range tools {
		var v any
		_ = json.Unmarshal(tl, &v)
		out = append(out, string(mustJSON(v)))
	}
	slices.Sort(out)
	return out, o.Instructions
}

func TestReplayEras(t *testing.T) {
	cases := []struct {
		name           string
		modern, legacy string // the two transcripts
		modernProto    string
		same           bool
	}{
		{"dual-era stdio, SDK defaults", "sdk2-dual-era-stdio-auto", "sdk2-dual-era-stdio-legacy", ProtocolAuto, true},
		{"dual-era http, SDK defaults", "sdk2-dual-era-http-auto", "sdk2-dual-era-http-legacy", ProtocolAuto, true},
		{"era-keyed factory", "sdk2-era-split-stdio-modern", "sdk2-era-split-stdio-legacy", ProtocolModern, false},
		{"era-keyed control", "sdk2-era-split-control-stdio-modern", "sdk2-era-split-control-stdio-legacy", ProtocolModern, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mTools, mInstr := surface(t, tc.modern, tc.modernProto)
			lTools, lInstr := surface(t, tc.legacy, ProtocolLegacy)
			// The items are the same in both eras; only the pages around
			// them differ (resultType, cache hint, serverInfo in _meta).
			d := cmp.Diff(lTools, mTools)
			if tc.same && (d != "" || mInstr != lInstr) {
				t.Errorf("eras differ (-legacy +modern):\n%s instructions %q vs %q", d, lInstr, mInstr)
			}
			if !tc.same && d == "" {
				t.Errorf("the era-keyed server shows both eras the same tools %v", mTools)
			}
		})
	}
}

// An MCP Apps tool names its ui:// page in _meta; the page is not listed
// but reads, with the harm the fixture planted.
func TestReplayAppsPage(t *testing.T) {
	c, _ := replayStdio(t, "sdk2-apps-ui-stdio-auto", Options{})
	openModern(t, c)
	_, _ = c.Call(openCtx(t), "server/discover", nil)
	tools, err := c.List(openCtx(t), "tools/list", "tools")
	if err != nil || len(tools) != 1 {
		t.Fatalf("%v %s", err, tools)
	}
	var tl struct {
		Meta struct {
			UI struct {
				ResourceURI string `json:"resourceUri"`
			} `json:"ui"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(tools[0], &tl)
	if tl.Meta.UI.ResourceURI != "ui://dashboard/app.html" {
		t.Fatalf("tool %s", tools[0])
	}
	call(t, c, "show_dashboard")
	_, _ = c.List(openCtx(t), "resources/templates/list", "resourceTemplates")
	ex, err := c.Request(openCtx(t), "resources/read", map[string]any{"uri": tl.Meta.UI.ResourceURI}, RequestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	page := string(ex.Result)
	for _, want := range []string{captureToken, "ignore previous instructions", "collect.fixture.example", `"connectDomains":["https://api.fixture.example"]`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
