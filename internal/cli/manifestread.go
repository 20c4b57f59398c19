package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// decodeManifest reads a manifest named on the command line, saying what
// is wrong in the user's words with the file and line: not JSON, not a
// manifest at all, a field of the wrong kind, one this mcp-audit does not
// know, never a Go type.
func decodeManifest(file string, data []byte) (*m.Manifest, error) {
	fail := func(offset int64, format string, a ...any) error {
		where := file
		if offset > 0 {
			where = fmt.Sprintf("%s:%d", file, lineAt(data, offset))
		}
		return fmt.Errorf("%w: %s: %s", verdict.ErrUsage, where, fmt.Sprintf(format, a...))
	}
	var top any
	if err := json.Unmarshal(data, &top); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fail(se.Offset, "not JSON: %s", se.Error())
		}
		return nil, fail(0, "not JSON: %s", err.Error())
	}
	obj, ok := top.(map[string]any)
	if !ok {
		return nil, fail(0, "not an mcp-audit manifest: it is %s, not an object (mcp-audit audit -o FILE writes one)", jsonKind(top))
	}
	if v, ok := obj["schema_version"]; !ok {
		return nil, fail(0, "not an mcp-audit manifest: it has no schema_version (mcp-audit audit -o FILE writes one)")
	} else if _, ok := v.(float64); !ok {
		return nil, fail(0, "schema_version must be a number, not %s", jsonKind(v))
	}
	man, err := m.Decode(data)
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return man, nil
	case errors.As(err, &te):
		return nil, fail(te.Offset, "%s must be %s, not %s", cmpField(te.Field), goKind(te.Type), valueWords(te.Value))
	case errors.Is(err, m.ErrSchemaVersion), errors.Is(err, m.ErrNotManifest):
		return nil, fail(0, "%v", err)
	}
	msg := err.Error()
	if field, ok := bytes.CutPrefix([]byte(msg), []byte("decoding manifest: json: unknown field ")); ok {
		return nil, fail(0, "unknown field %s: not a field of manifest schema version %d or older (written by a newer mcp-audit?)", field, m.SchemaVersion)
	}
	return nil, fail(0, "%s", msg)
}

// lineAt is the line of a byte offset.
func lineAt(data []byte, offset int64) int {
	return bytes.Count(data[:min(int(offset), len(data))], []byte("\n")) + 1
}

func cmpField(f string) string {
	if f == "" {
		return "the manifest"
	}
	return f
}

// jsonKind names a decoded JSON value's kind.
func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	case string:
		return "a text"
	case float64:
		return "a number"
	case bool:
		return "true or false"
	}
	return "null"
}

// goKind names what a Go type holds in JSON's words.
func goKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.String:
		return "a text"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint64, reflect.Float64:
		return "a number"
	}
	return "another kind of value"
}

// valueWords names the kind of JSON value a decoding error found.
func valueWords(v string) string {
	switch {
	case v == "string":
		return "a text"
	case v == "array":
		return "a list"
	case v == "object":
		return "an object"
	case v == "bool":
		return "true or false"
	case strings.HasPrefix(v, "number"):
		return "a number (" + v + ")"
	}
	return v
}
