// Package offers turns what a server offered over MCP in a session (its
// opening and its lists) into the manifest: bounded, canary values
// redacted, the values found reported as hits, and later listings
// compared with the first.
package offers

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	"github.com/mcp-audit/mcp-audit/internal/classify"
	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Lists are what a server offered in one session: its opening's answer
// and its lists, raw.
type Lists struct {
	Init                                 *mcpclient.InitializeResult
	Tools, Prompts, Resources, Templates []json.RawMessage
}

// Bounds on what the server can put into the manifest through MCP.
const (
	MaxTools       = 500
	maxDescription = 16 << 10
	maxSchema      = 64 << 10
	maxName        = 256
)

// Fill records what the server offered over MCP, canary values
// redacted, so the manifest never carries a secret (the values found are
// a finding of phase startup, how "mcp-output": Hits).
func Fill(man *m.Manifest, ses *Lists, cs *canary.Set) {
	clean := func(s string, max int) string { return textsafe.Text(cs.Redact(s), max) }
	man.Server.Capabilities = []string{}
	if ses.Init != nil {
		man.Server.Name = clean(ses.Init.ServerInfo.Name, maxName)
		man.Server.Version = clean(ses.Init.ServerInfo.Version, maxName)
		man.Server.ProtocolVersion = clean(ses.Init.ProtocolVersion, 64)
		man.Server.Instructions = clean(ses.Init.Instructions, maxDescription)
		for _, c := range ses.Init.CapabilityNames() {
			man.Server.Capabilities = append(man.Server.Capabilities, clean(c, 64))
		}
	}
	fillTools(man, ses.Tools, cs, clean)
	fillPrompts(man, ses.Prompts, clean)
	fillResources(man, ses.Resources, clean)
	fillTemplates(man, ses.Templates, clean)
}

// canaries finds canary values in the handshake and the lists.
func canaries(ses *Lists, cs *canary.Set) []m.CanaryHit {
	finder := canary.NewFinder(cs.All())
	var hits []m.CanaryHit
	scan := func(what string, raw []json.RawMessage) {
		for _, r := range raw {
			for _, h := range finder.Find(r) {
				hits = append(hits, m.CanaryHit{Canary: h.Canary, How: m.HowMCPOutput, Evidence: what, Encoding: h.Encoding})
			}
		}
	}
	scan("tools/list", ses.Tools)
	scan("prompts/list", ses.Prompts)
	scan("resources/list", ses.Resources)
	scan("resources/templates/list", ses.Templates)
	if ses.Init != nil {
		b, _ := json.Marshal(ses.Init)
		scan("initialize", []json.RawMessage{b})
	}
	return hits
}

func fillTools(man *m.Manifest, tools []json.RawMessage, cs *canary.Set, clean func(string, int) string) {
	for i, raw := range tools {
		if i == MaxTools {
			man.Run.Notes = append(man.Run.Notes, fmt.Sprintf("only the first %d of %d tools are recorded", MaxTools, len(tools)))
			break
		}
		var t struct {
			Name         string          `json:"name"`
			Title        string          `json:"title"`
			Description  string          `json:"description"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
			Annotations  json.RawMessage `json:"annotations"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			man.Run.Notes = append(man.Run.Notes, "a tools/list entry is not an object")
			continue
		}
		tool := m.Tool{Name: clean(t.Name, maxName), Title: clean(t.Title, maxName),
			Description: clean(t.Description, maxDescription), InputSchema: boundedJSON(t.InputSchema, cs),
			OutputSchema: boundedJSON(t.OutputSchema, cs), Annotations: boundedJSON(t.Annotations, cs)}
		tool.Digest = m.ToolDigest(tool)
		man.Tools = append(man.Tools, tool)
	}
}

// boundedJSON is a schema or annotations object in canonical form, canary
// values redacted, replaced by a note when larger than 64 KiB (the tool's
// digest still pins it).
func boundedJSON(raw json.RawMessage, cs *canary.Set) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	out := m.CanonicalJSON(json.RawMessage(cs.Redact(string(raw))))
	if len(out) > maxSchema {
		out = json.RawMessage(`{"$comment":"mcp-audit: larger than 64 KiB, see digest"}`)
	}
	return out
}

func fillPrompts(man *m.Manifest, prompts []json.RawMessage, clean func(string, int) string) {
	for _, raw := range prompts {
		var p struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			Arguments   []struct {
				Name        string `json:"name"`
				Description string `json:"description"`
			} `json:"arguments"`
		}
		if json.Unmarshal(raw, &p) != nil {
			continue
		}
		pr := m.Prompt{Name: clean(p.Name, maxName), Description: clean(p.Description, maxDescription)}
		for _, a := range p.Arguments {
			pr.Arguments = append(pr.Arguments, clean(a.Name, maxName))
			if a.Description != "" {
				pr.ArgumentDescriptions = append(pr.ArgumentDescriptions,
					m.PromptArgument{Name: clean(a.Name, maxName), Description: clean(a.Description, maxDescription)})
			}
		}
		man.Prompts = append(man.Prompts, pr)
	}
}

// listedResource is the shape of resources/list and
// resources/templates/list entries.
type listedResource struct {
	URI         string `json:"uri"`
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	MimeType    string `json:"mimeType"`
}

func fillResources(man *m.Manifest, resources []json.RawMessage, clean func(string, int) string) {
	for _, raw := range resources {
		var r listedResource
		if json.Unmarshal(raw, &r) != nil {
			continue
		}
		man.Resources = append(man.Resources, m.Resource{URI: clean(r.URI, 2048), Name: clean(r.Name, maxName),
			Title: clean(r.Title, maxName), Description: clean(r.Description, maxDescription), MimeType: clean(r.MimeType, 128)})
	}
}

func fillTemplates(man *m.Manifest, templates []json.RawMessage, clean func(string, int) string) {
	for i, raw := range templates {
		if i == MaxTools {
			break
		}
		var r listedResource
		if json.Unmarshal(raw, &r) != nil {
			continue
		}
		man.ResourceTemplates = append(man.ResourceTemplates, m.ResourceTemplate{URITemplate: clean(r.URITemplate, 2048),
			Name: clean(r.Name, maxName), Title: clean(r.Title, maxName), Description: clean(r.Description, maxDescription),
			MimeType: clean(r.MimeType, 128)})
	}
}

// Changes compares every later listing with the first offer (in
// man); a change seen in several is listed once, as first seen.
func Changes(man *m.Manifest, sessions []*Lists, cs *canary.Set) []m.ListChange {
	seen := map[string]bool{}
	var out []m.ListChange
	for _, s := range sessions {
		if s == nil {
			continue
		}
		after := &m.Manifest{}
		Fill(after, s, cs)
		for _, c := range diff.Offers(man, after, nil) {
			if k := c.List + "\x00" + c.Name + "\x00" + c.Field; !seen[k] {
				seen[k] = true
				out = append(out, c)
			}
		}
	}
	diff.SortListChanges(out)
	if len(out) > MaxTools {
		out = out[:MaxTools]
	}
	return out
}

// Hits are the canaries in what the server listed, for phase
// startup: the first listing's, and those a later listing showed that the
// first did not ("listed again after the calls").
func Hits(first *Lists, later []*Lists, cs *canary.Set) []classify.Observed {
	var out []classify.Observed
	seen := map[string]bool{}
	add := func(h m.CanaryHit) {
		out = append(out, classify.Observed{Phase: m.PhaseStartup, Canary: &h})
	}
	for _, h := range canaries(first, cs) {
		seen[h.Canary+"\x00"+h.How+"\x00"+h.Evidence] = true
		add(h)
	}
	for _, s := range later {
		if s == nil {
			continue
		}
		for _, h := range canaries(s, cs) {
			if k := h.Canary + "\x00" + h.How + "\x00" + h.Evidence; !seen[k] {
				seen[k] = true // once, however many listings showed it
				h.Evidence += " (listed again after the calls)"
				add(h)
			}
		}
	}
	return out
}
