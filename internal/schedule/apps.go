package schedule

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Bounds of what the apps and completions plans add.
const (
	maxApps        = 20
	maxCompletions = 16
)

// planApps reads every ui:// page a tool's _meta names (MCP Apps: the
// page a host renders when the tool is called), listed or not: a page
// served only through a template, or through nothing resources/list
// shows, is what a host renders all the same. Pages already read by the
// plan so far are not read twice.
func planApps(tools []json.RawMessage, planned []Call) []Call {
	var out []Call
	seen := map[string]bool{}
	for _, c := range planned {
		if c.Method == "resources/read" {
			seen[c.Name] = true
		}
	}
	for _, raw := range tools {
		for _, uri := range AppPages(raw) {
			if seen[uri] || len(out) == maxApps {
				continue
			}
			seen[uri] = true
			out = append(out, readCall("app", uri))
		}
	}
	return out
}

// AppPages are the ui:// pages one tools/list entry names in its _meta:
// _meta.ui.resourceUri (the extension's shape) or _meta["ui/resourceUri"]
// (its earlier draft's).
func AppPages(tool json.RawMessage) []string {
	var t struct {
		Meta struct {
			UI struct {
				ResourceURI string `json:"resourceUri"`
			} `json:"ui"`
			Draft string `json:"ui/resourceUri"`
		} `json:"_meta"`
	}
	if json.Unmarshal(tool, &t) != nil {
		return nil
	}
	var out []string
	for _, u := range []string{t.Meta.UI.ResourceURI, t.Meta.Draft} {
		if strings.HasPrefix(u, "ui://") && len(u) <= 2048 && !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	return out
}

// reVariable is a URI template's variable ({name}, {+name}, {?a,b}).
var reVariable = regexp.MustCompile(`\{[+#./;?&]?([A-Za-z0-9_,.*%-]{1,64})\}`)

// planCompletions asks completion/complete for each prompt argument and
// each template variable, with an empty value, as a client does when the
// user starts typing: what the server suggests is text the client shows.
func planCompletions(prompts, templates []json.RawMessage) []Call {
	var out []Call
	add := func(ref map[string]string, what, arg string) {
		if len(out) == maxCompletions {
			return
		}
		params := map[string]any{"ref": ref, "argument": map[string]string{"name": arg, "value": ""}}
		b, _ := json.Marshal(params)
		out = append(out, Call{Kind: "completion", Name: what + " " + arg, Phase: m.PhaseCompletePrefix + textsafe.Text(what+"/"+arg, maxName),
			Method: "completion/complete", Params: params, Args: b, Valid: true, Pass: 1})
	}
	for _, raw := range prompts {
		var p struct {
			Name      string `json:"name"`
			Arguments []struct {
				Name string `json:"name"`
			} `json:"arguments"`
		}
		if json.Unmarshal(raw, &p) != nil || p.Name == "" {
			continue
		}
		for _, a := range p.Arguments {
			if a.Name != "" {
				add(map[string]string{"type": "ref/prompt", "name": p.Name}, p.Name, a.Name)
			}
		}
	}
	for _, raw := range templates {
		var r struct {
			URITemplate string `json:"uriTemplate"`
		}
		if json.Unmarshal(raw, &r) != nil || r.URITemplate == "" {
			continue
		}
		for _, mm := range reVariable.FindAllStringSubmatch(r.URITemplate, 8) {
			for _, v := range strings.Split(mm[1], ",") {
				if v = strings.TrimSuffix(v, "*"); v != "" {
					add(map[string]string{"type": "ref/resource", "uri": r.URITemplate}, r.URITemplate, v)
				}
			}
		}
	}
	return out
}
