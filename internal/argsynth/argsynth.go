// Package argsynth chooses the arguments mcp-audit calls a server's tools
// with: values synthesized from each tool's JSON Schema, its description
// and its name (argsynth.go, gen.go, kinds.go), a plan of several
// argument sets per tool (plan.go), references to what earlier calls
// returned (refs.go), an order of tools by what they do (order.go), one
// corrected retry from an error message (retry.go), and probes whose
// markers show that a parameter was evaluated, opened or fetched
// (probes.go). It does no I/O: the scheduler in internal/audit calls it.
//
// Values look like a real user's (a person's name and address at a
// made-up company, a report title, paths inside the decoy workspace,
// URLs of the service a tool is about), so a server cannot tell an audit
// from real use by its arguments; they never name the tool or the
// auditor, and no reserved test domain appears. They are sent only into
// the sandbox, whose sinkhole answers every name, so nothing leaves. They
// are fixed, and each argument of a call gets its own: a payload that
// carries one can be traced back to the argument that supplied it,
// anything else in a payload stands out (the postmark-mcp pattern, a
// hidden Bcc), and manifests stay byte-identical.
package argsynth

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// Caller-supplied values. They appear in the manifest's call records so
// that diffs can tell supplied values from injected ones.
const (
	Email     = "maria.lindqvist@brightwater-logistics.com"
	URL       = "https://www.brightwater-logistics.com/reports/q3-summary"
	Host      = "files.brightwater-logistics.com"
	Text      = "Quarterly report"
	Person    = "Maria Lindqvist"
	Login     = "mlindqvist"
	Company   = "Brightwater Logistics"
	ID        = "48213"
	Query     = "shipping delays october"
	Workspace = "/home/dev/workspace"
	File      = "/home/dev/workspace/README.md"
)

var errTooLarge = errors.New("input schema too large")

// ForName returns the value a string parameter called name gets when its
// schema says nothing more (prompt arguments, URI template variables).
func ForName(name string) string {
	g := newGen(compile(Tool{}), false)
	return g.str(nil, name, "/"+escape(name))
}

// Synthesize returns the required-only arguments for a tool whose
// inputSchema is raw, and whether they validate against it. An empty
// schema yields {}. It is the first set of Plan for a tool known only by
// its schema.
func Synthesize(raw json.RawMessage) (json.RawMessage, bool, error) {
	c := compile(Tool{InputSchema: raw})
	if c.err != nil {
		return json.RawMessage(`{}`), false, fmt.Errorf("input schema: %w", c.err)
	}
	v, valid := c.synth(opts{})
	out, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`{}`), false, err
	}
	return out, valid, nil
}

// Validate checks args against a tool's input schema. A schema the
// validator cannot be trusted with (guard.go: a reference cycle at one
// location, an exponential cost) is an error, never validated.
func Validate(schema, args json.RawMessage) error {
	if len(schema) > maxSchemaBytes {
		return errTooLarge
	}
	var s jsonschema.Schema
	if len(schema) > 0 && string(schema) != "null" {
		if err := json.Unmarshal(schema, &s); err != nil {
			return err
		}
	}
	if err := guard(&s); err != nil {
		return err
	}
	rs, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: false})
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return err
	}
	return rs.Validate(v)
}
