// Package schemas holds the JSON Schemas of mcp-audit's published
// formats — the manifest, mcp-audit.yml, the JSON report and the
// published site's index and change files — and checks documents
// against them. Tests of every producer validate what it really writes.
package schemas

import (
	"embed"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// Names of the schemas, by the format they describe.
const (
	Manifest    = "manifest.schema.json"
	Config      = "mcp-audit-config.schema.json"
	Report      = "report.schema.json"
	SiteIndex   = "site-index.schema.json"
	SiteChanges = "site-changes.schema.json"
)

//go:embed *.schema.json
var files embed.FS

// Schema returns a schema's text.
func Schema(name string) ([]byte, error) { return files.ReadFile(name) }

// Validate checks a JSON document against one of the schemas.
func Validate(name string, doc []byte) error {
	raw, err := Schema(name)
	if err != nil {
		return err
	}
	return ValidateWith(raw, doc)
}

// ValidateWith checks a JSON document against a schema given as text.
func ValidateWith(schema, doc []byte) error {
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return fmt.Errorf("reading the schema: %w", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return fmt.Errorf("resolving the schema: %w", err)
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return fmt.Errorf("reading the document: %w", err)
	}
	return rs.Validate(v)
}
