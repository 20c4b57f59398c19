package manifest

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrSchemaVersion is returned when decoding a manifest written by a newer,
// incompatible version of mcp-audit.
var ErrSchemaVersion = errors.New("unsupported manifest schema version")

// ErrNotManifest is returned for JSON that is not an mcp-audit manifest.
var ErrNotManifest = errors.New("not an mcp-audit manifest")

// Encode returns the canonical JSON encoding of m: slices sorted and
// de-duplicated, nil slices written as [], two-space indent, no HTML
// escaping, trailing newline. Encode canonicalizes a copy; m is unchanged.
func Encode(m *Manifest) ([]byte, error) {
	c := *m
	Canonicalize(&c)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&c); err != nil {
		return nil, fmt.Errorf("encoding manifest: %w", err)
	}
	return buf.Bytes(), nil
}

// Decode parses a manifest and rejects unknown schema versions.
func Decode(data []byte) (*Manifest, error) {
	var probe struct {
		SchemaVersion int `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("decoding manifest: %w", err)
	}
	if probe.SchemaVersion < 1 || probe.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("%w %d (this mcp-audit reads up to %d)", ErrSchemaVersion, probe.SchemaVersion, SchemaVersion)
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("decoding manifest: %w", err)
	}
	// A file with a schema version and nothing else is no audit: judging
	// it would pass a server nobody ran.
	if m.Target.Ecosystem == "" || m.Target.Name == "" || m.Outcome.Status == "" {
		return nil, fmt.Errorf("%w: it names no audited target or outcome", ErrNotManifest)
	}
	return &m, nil
}

// Canonicalize sorts and de-duplicates every slice in m and replaces nil
// slices with empty ones, in place.
func Canonicalize(m *Manifest) {
	m.Server.Capabilities = sortedUnique(m.Server.Capabilities, strings.Compare)
	m.Target.Entry = nonNil(m.Target.Entry)
	m.Target.Service = sortedUnique(m.Target.Service, strings.Compare)
	m.Target.Supplied = sortedUnique(m.Target.Supplied, strings.Compare)

	m.Witness = sortedUnique(m.Witness, compareWitness)
	m.Server.Eras = sortedUnique(m.Server.Eras, strings.Compare)
	m.Apps = sortedUnique(m.Apps, func(a, b AppPage) int {
		return cmp.Or(strings.Compare(a.URI, b.URI), strings.Compare(a.SHA256, b.SHA256))
	})
	m.EraDifferences = sortedUnique(m.EraDifferences, func(a, b EraDifference) int {
		return cmp.Or(strings.Compare(a.Subject, b.Subject), strings.Compare(a.Only, b.Only), strings.Compare(a.Eras, b.Eras), strings.Compare(a.Evidence, b.Evidence))
	})
	if c := m.Coverage; c != nil {
		// Empty lists are [] like every other (the schema says so); the
		// order is coverage's.
		c.Errors, c.NotCalled, c.Eras, c.Incomplete = nonNil(c.Errors), nonNil(c.NotCalled), nonNil(c.Eras), nonNil(c.Incomplete)
	}
	m.Tools = slices.Clone(m.Tools)
	for i := range m.Tools {
		m.Tools[i].InputSchema = CanonicalJSON(m.Tools[i].InputSchema)
		m.Tools[i].OutputSchema = CanonicalJSON(m.Tools[i].OutputSchema)
		m.Tools[i].Annotations = CanonicalJSON(m.Tools[i].Annotations)
		m.Tools[i].Digest = ToolDigest(m.Tools[i])
	}
	m.Tools = sortedUnique(m.Tools, func(a, b Tool) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Digest, b.Digest))
	})
	m.Prompts = slices.Clone(m.Prompts)
	for i := range m.Prompts {
		m.Prompts[i].Arguments = sortedUnique(m.Prompts[i].Arguments, strings.Compare)
		if len(m.Prompts[i].ArgumentDescriptions) > 0 {
			m.Prompts[i].ArgumentDescriptions = sortedUnique(m.Prompts[i].ArgumentDescriptions, func(a, b PromptArgument) int {
				return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Description, b.Description))
			})
		}
	}
	m.Prompts = sortedUnique(m.Prompts, func(a, b Prompt) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Description, b.Description),
			slices.Compare(a.Arguments, b.Arguments))
	})
	m.Resources = sortedUnique(m.Resources, func(a, b Resource) int {
		return cmp.Or(strings.Compare(a.URI, b.URI), strings.Compare(a.Name, b.Name), strings.Compare(a.MimeType, b.MimeType),
			strings.Compare(a.Title, b.Title), strings.Compare(a.Description, b.Description))
	})
	if len(m.ResourceTemplates) > 0 {
		m.ResourceTemplates = sortedUnique(m.ResourceTemplates, func(a, b ResourceTemplate) int {
			return cmp.Or(strings.Compare(a.URITemplate, b.URITemplate), strings.Compare(a.Name, b.Name),
				strings.Compare(a.Title, b.Title), strings.Compare(a.Description, b.Description), strings.Compare(a.MimeType, b.MimeType))
		})
	}

	m.Phases = mergePhases(m.Phases)
	for i := range m.Phases {
		canonicalPhase(&m.Phases[i])
	}
	m.Calls = slices.Clone(m.Calls)
	for i := range m.Calls {
		m.Calls[i].Args = CanonicalJSON(m.Calls[i].Args)
		m.Calls[i].Content = nonNil(m.Calls[i].Content)
	}
	// Calls keep their order: it is the order they were made in.
	m.Calls = nonNil(m.Calls)
	slices.SortStableFunc(m.Phases, func(a, b Phase) int {
		return cmp.Or(cmp.Compare(PhaseRank(a.Name), PhaseRank(b.Name)), strings.Compare(a.Name, b.Name))
	})

	m.Run.PhaseTimingMS = nonNil(m.Run.PhaseTimingMS)
	m.Run.Notes = nonNil(m.Run.Notes)
}

func canonicalPhase(p *Phase) {
	p.Files = sortedUnique(p.Files, func(a, b FileAccess) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Access, b.Access),
			strings.Compare(a.Result, b.Result), strings.Compare(a.Category, b.Category), strings.Compare(a.Target, b.Target))
	})
	p.FileSummary = sortedUnique(p.FileSummary, func(a, b FileCount) int {
		return cmp.Or(strings.Compare(a.Category, b.Category), strings.Compare(a.Access, b.Access),
			strings.Compare(a.Result, b.Result), cmp.Compare(a.Paths, b.Paths))
	})
	p.Processes = slices.Clone(p.Processes)
	for i := range p.Processes {
		p.Processes[i].Argv = nonNil(p.Processes[i].Argv)
	}
	p.Processes = sortedUnique(p.Processes, func(a, b Process) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), slices.Compare(a.Argv, b.Argv), strings.Compare(a.Result, b.Result),
			boolCmp(a.Shell, b.Shell), boolCmp(a.Lifecycle, b.Lifecycle))
	})
	p.Network = sortedUnique(p.Network, func(a, b Connection) int {
		return cmp.Or(strings.Compare(a.Proto, b.Proto), strings.Compare(a.Op, b.Op), strings.Compare(a.Name, b.Name),
			strings.Compare(a.Address, b.Address), cmp.Compare(a.Port, b.Port), strings.Compare(a.Result, b.Result),
			strings.Compare(a.Category, b.Category), strings.Compare(a.Process, b.Process),
			strings.Compare(a.Protocol, b.Protocol), strings.Compare(a.SNI, b.SNI), strings.Compare(a.ALPN, b.ALPN),
			strings.Compare(a.TLS, b.TLS), boolCmp(a.AfterAnswer, b.AfterAnswer))
	})
	p.DNS = sortedUnique(p.DNS, func(a, b DNSQuery) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Type, b.Type), strings.Compare(a.Server, b.Server),
			strings.Compare(a.Process, b.Process), boolCmp(a.AfterAnswer, b.AfterAnswer))
	})
	p.Requests = slices.Clone(p.Requests)
	for i := range p.Requests {
		r := &p.Requests[i]
		r.QueryKeys = sortedUnique(r.QueryKeys, strings.Compare)
		r.HeaderNames = sortedUnique(r.HeaderNames, strings.Compare)
		r.BodyFields = sortedUnique(r.BodyFields, strings.Compare)
		r.Emails = sortedUnique(r.Emails, strings.Compare)
		r.Hosts = sortedUnique(r.Hosts, strings.Compare)
	}
	p.Requests = sortedUnique(p.Requests, func(a, b Request) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), cmp.Compare(a.Port, b.Port), strings.Compare(a.Scheme, b.Scheme),
			strings.Compare(a.Method, b.Method), strings.Compare(a.Host, b.Host), strings.Compare(a.Path, b.Path),
			slices.Compare(a.QueryKeys, b.QueryKeys), slices.Compare(a.HeaderNames, b.HeaderNames),
			slices.Compare(a.BodyFields, b.BodyFields), slices.Compare(a.Emails, b.Emails), slices.Compare(a.Hosts, b.Hosts),
			strings.Compare(a.Process, b.Process), boolCmp(a.AfterAnswer, b.AfterAnswer))
	})
	p.Canaries = sortedUnique(p.Canaries, func(a, b CanaryHit) int {
		return cmp.Or(strings.Compare(a.Canary, b.Canary), strings.Compare(a.How, b.How),
			strings.Compare(a.Evidence, b.Evidence), strings.Compare(a.Encoding, b.Encoding))
	})
	p.Alerts = sortedUnique(p.Alerts, func(a, b Alert) int {
		return cmp.Or(strings.Compare(a.Kind, b.Kind), strings.Compare(a.Detail, b.Detail))
	})
	p.ServerRequests = sortedUnique(p.ServerRequests, func(a, b ServerRequest) int {
		return cmp.Or(strings.Compare(a.Method, b.Method), strings.Compare(a.Answer, b.Answer))
	})
	canonicalEffects(p)
	if len(p.Messages) > 0 {
		p.Messages = sortedUnique(p.Messages, func(a, b ServerMessage) int {
			return cmp.Or(strings.Compare(a.Channel, b.Channel), strings.Compare(a.Method, b.Method), strings.Compare(a.Text, b.Text))
		})
	}
}

// mergePhases combines phases with the same name (a restarted server has a
// second startup) by concatenating their lists; sorting dedupes them.
func mergePhases(in []Phase) []Phase {
	var out []Phase
	idx := map[string]int{}
	for _, p := range in {
		i, ok := idx[p.Name]
		if !ok {
			idx[p.Name] = len(out)
			out = append(out, p)
			continue
		}
		q := &out[i]
		q.Files = append(slices.Clone(q.Files), p.Files...)
		q.Processes = append(slices.Clone(q.Processes), p.Processes...)
		q.Network = append(slices.Clone(q.Network), p.Network...)
		q.DNS = append(slices.Clone(q.DNS), p.DNS...)
		q.Requests = append(slices.Clone(q.Requests), p.Requests...)
		q.Canaries = append(slices.Clone(q.Canaries), p.Canaries...)
		q.Alerts = append(slices.Clone(q.Alerts), p.Alerts...)
		q.ServerRequests = append(slices.Clone(q.ServerRequests), p.ServerRequests...)
		q.Messages = append(slices.Clone(q.Messages), p.Messages...)
		q.Destroyed = append(slices.Clone(q.Destroyed), p.Destroyed...)
		q.Probes = append(slices.Clone(q.Probes), p.Probes...)
		// A restarted server reads mostly the same files again: keep the
		// larger count rather than adding them up.
		sum := map[FileCount]int{}
		for _, c := range append(slices.Clone(q.FileSummary), p.FileSummary...) {
			k := c
			k.Paths = 0
			sum[k] = max(sum[k], c.Paths)
		}
		q.FileSummary = nil
		for k, n := range sum {
			k.Paths = n
			q.FileSummary = append(q.FileSummary, k)
		}
	}
	return out
}

// ToolDigest pins a tool: sha256 over its name, description and canonical
// input schema, separated by NUL bytes, followed by the canonical output
// schema and annotations when the tool has either (so tools without them
// keep the digests earlier releases gave them).
func ToolDigest(t Tool) string {
	h := sha256.New()
	h.Write([]byte(t.Name))
	h.Write([]byte{0})
	h.Write([]byte(t.Description))
	h.Write([]byte{0})
	h.Write(CanonicalJSON(t.InputSchema))
	if len(t.OutputSchema) > 0 || len(t.Annotations) > 0 {
		h.Write([]byte{0})
		h.Write(CanonicalJSON(t.OutputSchema))
		h.Write([]byte{0})
		h.Write(CanonicalJSON(t.Annotations))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// CanonicalJSON re-encodes raw JSON with sorted object keys, no insignificant
// whitespace and numbers kept verbatim. Invalid JSON is returned as a JSON
// string holding the original text, so nothing is silently lost.
func CanonicalJSON(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		s, _ := json.Marshal(string(raw))
		return s
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		s, _ := json.Marshal(string(raw))
		return s
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

func sortedUnique[T any](s []T, compare func(a, b T) int) []T {
	out := slices.Clone(s)
	if out == nil {
		out = []T{}
	}
	slices.SortStableFunc(out, compare)
	return slices.CompactFunc(out, func(a, b T) bool { return compare(a, b) == 0 })
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// PhaseByName returns the phase with the given name, or nil.
func (m *Manifest) PhaseByName(name string) *Phase {
	for i := range m.Phases {
		if m.Phases[i].Name == name {
			return &m.Phases[i]
		}
	}
	return nil
}
