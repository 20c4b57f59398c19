package audit

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Bounds on what the server can put into the manifest through MCP.
const (
	maxTools       = 500
	maxDescription = 16 << 10
	maxSchema      = 64 << 10
	maxName        = 256
)

// fillServer records what the server offered over MCP, canary values
// redacted, so the manifest never carries a secret (the values found are
// a finding of phase startup, how "mcp-output": offerHits).
func fillServer(man *m.Manifest, ses *session, cs *canary.Set) {
	clean := func(s string, max int) string { return textsafe.Text(cs.Redact(s), max) }
	man.Server.Capabilities = []string{}
	if ses.init != nil {
		man.Server.Name = clean(ses.init.ServerInfo.Name, maxName)
		man.Server.Version = clean(ses.init.ServerInfo.Version, maxName)
		man.Server.ProtocolVersion = clean(ses.init.ProtocolVersion, 64)
		man.Server.Instructions = clean(ses.init.Instructions, maxDescription)
		for _, c := range ses.init.CapabilityNames() {
			man.Server.Capabilities = append(man.Server.Capabilities, clean(c, 64))
		}
	}
	fillTools(man, ses.tools, cs, clean)
	fillPrompts(man, ses.prompts, clean)
	fillResources(man, ses.resources, clean)
	fillTemplates(man, ses.templates, clean)
}

// mcpCanaries finds canary values in the handshake and the lists.
func mcpCanaries(ses *session, cs *canary.Set) []m.CanaryHit {
	finder := canary.NewFinder(cs.All())
	var hits []m.CanaryHit
	scan := func(what string, raw []json.RawMessage) {
		for _, r := range raw {
			for _, h := range finder.Find(r) {
				hits = append(hits, m.CanaryHit{Canary: h.Canary, How: m.HowMCPOutput, Evidence: what, Encoding: h.Encoding})
			}
		}
	}
	scan("tools/list", ses.tools)
	scan("prompts/list", ses.prompts)
	scan("resources/list", ses.resources)
	scan("resources/templates/list", ses.templates)
	if ses.init != nil {
		b, _ := json.Marshal(ses.init)
		scan("initialize", []json.RawMessage{b})
	}
	return hits
}

func fillTools(man *m.Manifest, tools []json.RawMessage, cs *canary.Set, clean func(string, int) string) {
	for i, raw := range tools {
		if i == maxTools {
			man.Run.Notes = append(man.Run.Notes, fmt.Sprintf("only the first %d of %d tools are recorded", maxTools, len(tools)))
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
		if i == maxTools {
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
