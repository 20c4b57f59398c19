package schemas

import (
	"encoding/json"
	"path"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/report"
)

// manifestSchema derives the manifest's JSON Schema from its Go types,
// the format's one definition: every struct of package manifest becomes
// a definition of its own, a field without omitempty is required, no
// object takes properties it does not name, a list is an array (a
// canonical manifest never writes null), and the vocabularies of
// manifest's constants are enumerations. TestSchemasCurrent keeps
// manifest.schema.json equal to it.
func manifestSchema() (*jsonschema.Schema, error) {
	root, err := generate(reflect.TypeFor[m.Manifest](), nil)
	if err != nil {
		return nil, err
	}
	defs := root.Defs
	root.Schema = "https://json-schema.org/draft/2020-12/schema"
	root.ID = "https://github.com/mcp-audit/mcp-audit/schemas/manifest.schema.json"
	root.Title = "mcp-audit behavior manifest"
	root.Description = "What one version of an MCP server did in mcp-audit's sandbox (docs/manifest.md). Schema versions 1 and 2; the tool's version is in run.tool."
	root.Properties["schema_version"] = &jsonschema.Schema{Type: "integer", Enum: []any{1, m.SchemaVersion}}
	enum := func(def, prop string, vals ...string) {
		s := defs[def].Properties[prop]
		for _, v := range vals {
			s.Enum = append(s.Enum, v)
		}
	}
	enum("outcome", "status", m.StatusOK, m.StatusCrashed, m.StatusNoHandshake, m.StatusKilled, m.StatusError)
	enum("call", "outcome", m.CallOK, m.CallError, m.CallTimeout, m.CallServerDied, m.CallTooLarge, m.CallSkipped)
	access := []string{m.AccessRead, m.AccessWrite, m.AccessCreate, m.AccessDelete, m.AccessRename, m.AccessExec, m.AccessStat,
		m.AccessChdir, m.AccessSymlink, m.AccessMount, m.AccessDirWrite}
	cats := []string{m.CatOwnPackage, m.CatRuntime, m.CatSystem, m.CatSensitive, m.CatCanary, m.CatAntiAnalysis, m.CatShellRC,
		m.CatAIConfig, m.CatHome, m.CatWorkspace, m.CatTemp, m.CatOther}
	results := []string{m.ResultOK, m.ResultMissing, m.ResultDenied, m.ResultError}
	for _, def := range []string{"file_access", "file_count"} {
		enum(def, "access", access...)
		enum(def, "category", cats...)
		enum(def, "result", results...)
	}
	enum("canary_hit", "how", m.HowFileRead, m.HowFileWrite, m.HowFileDelete, m.HowFileRename, m.HowFileReadWitness, m.HowSent,
		m.HowArgv, m.HowMCPOutput, m.HowServerRequest, m.HowNotification, m.HowStderr, m.HowStdout, m.HowWrittenToFile)
	return root, nil
}

// generate derives the schema of root's type: every struct type of this
// module it reaches is a definition of its own (named in snake case), a
// field without omitempty is required, no object takes properties it
// does not name, and a list is an array, never null (canonical outputs
// write [] for an empty list). fixed maps types that marshal themselves
// to their schemas.
func generate(root reflect.Type, fixed map[reflect.Type]*jsonschema.Schema) (*jsonschema.Schema, error) {
	types := structTypes(root)
	refs := map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[json.RawMessage](): {}}
	for k, v := range fixed {
		refs[k] = v
	}
	names := map[reflect.Type]string{}
	used := map[string]bool{}
	for _, t := range types {
		n := defName(t)
		if used[n] {
			n = path.Base(t.PkgPath()) + "_" + n
		}
		used[n], names[t] = true, n
		refs[t] = &jsonschema.Schema{Ref: "#/$defs/" + n}
	}
	defs := map[string]*jsonschema.Schema{}
	for _, t := range types {
		own := map[reflect.Type]*jsonschema.Schema{}
		for k, v := range refs {
			if k != t {
				own[k] = v
			}
		}
		s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: own})
		if err != nil {
			return nil, err
		}
		defs[names[t]] = s
	}
	out := defs[names[root]]
	delete(defs, names[root])
	for _, s := range append([]*jsonschema.Schema{out}, mapValues(defs)...) {
		walk(s, func(s *jsonschema.Schema) {
			if slices.Equal(s.Types, []string{"null", "array"}) {
				s.Types, s.Type = nil, "array"
			}
			if s.Ref != "" && len(s.Types)+len(s.Type) > 0 {
				// A pointer to a struct: null or the struct.
				s.AnyOf = []*jsonschema.Schema{{Type: "null"}, {Ref: s.Ref}}
				s.Types, s.Type, s.Ref = nil, "", ""
			}
			s.PropertyOrder = nil
		})
	}
	out.Defs = defs
	return out, nil
}

// structTypes are the struct types of this module reachable from t.
func structTypes(t reflect.Type) []reflect.Type {
	var out []reflect.Type
	var visit func(reflect.Type)
	visit = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || !strings.HasPrefix(t.PkgPath(), "github.com/mcp-audit/mcp-audit/") || slices.Contains(out, t) {
			return
		}
		out = append(out, t)
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && f.Tag.Get("json") != "-" {
				visit(f.Type)
			}
		}
	}
	visit(t)
	return out
}

// defName is a Go type's definition name: FileAccess -> file_access,
// DNSQuery -> dns_query.
func defName(t reflect.Type) string {
	rs := []rune(t.Name())
	var b strings.Builder
	for i, r := range rs {
		if i > 0 && unicode.IsUpper(r) && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// walk visits s and every schema below it.
func walk(s *jsonschema.Schema, f func(*jsonschema.Schema)) {
	if s == nil {
		return
	}
	f(s)
	for _, p := range s.Properties {
		walk(p, f)
	}
	walk(s.Items, f)
	walk(s.AdditionalProperties, f)
	for _, d := range s.Defs {
		walk(d, f)
	}
}

func mapValues[V any](mp map[string]V) []V {
	var out []V
	for _, v := range mp {
		out = append(out, v)
	}
	return out
}

// reportSchema derives the JSON report's schema from its Go types
// (report.JSONReport), severities as their names.
func reportSchema() (*jsonschema.Schema, error) {
	sev := &jsonschema.Schema{Type: "string", Enum: []any{"info", "low", "medium", "high", "critical", "none"}}
	root, err := generate(reflect.TypeFor[report.JSONReport](), map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[policy.Severity](): sev})
	if err != nil {
		return nil, err
	}
	root.Schema = "https://json-schema.org/draft/2020-12/schema"
	root.ID = "https://github.com/mcp-audit/mcp-audit/schemas/report.schema.json"
	root.Title = "mcp-audit JSON report"
	root.Description = "The findings and behavior changes of audit, diff, check and report --format json, servers most harmful first (docs/manifest.md#the-json-report)."
	root.Properties["schema_version"] = &jsonschema.Schema{Type: "integer", Const: jsonschema.Ptr[any](report.ReportSchemaVersion)}
	root.Defs["diff_report"].Properties["result"].AnyOf[1] = &jsonschema.Schema{Ref: "#/$defs/result"}
	root.Defs["result"].Properties["verdict"].Enum = []any{m.VerdictFail, m.VerdictIncomplete, m.VerdictPass}
	root.Defs["change"].Properties["op"].Enum = []any{diff.Added, diff.Removed, diff.Changed}
	root.Defs["word"].Properties["op"].Enum = []any{"same", diff.Added, diff.Removed}
	return root, nil
}
