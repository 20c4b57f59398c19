package schemas

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"go.yaml.in/yaml/v3"

	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// yamlToJSON reads YAML as the JSON a schema validates.
func yamlToJSON(t *testing.T, data []byte) []byte {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConfigsValidate: every configuration the project keeps that
// mcp-audit accepts — mcp-audit.yml, the study's server lists, and those
// of the CLI's scripts — is valid under mcp-audit-config.schema.json, and
// the schema refuses what mcp-audit refuses.
func TestConfigsValidate(t *testing.T) {
	files := map[string][]byte{}
	for _, f := range []string{"../mcp-audit.yml", "../study/servers.yml", "../study/python.yml", "../study/images.yml"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		files[f] = b
	}
	scripts, _ := filepath.Glob("../internal/cli/testdata/script*/*.txtar")
	for _, s := range scripts {
		a, err := txtar.ParseFile(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if strings.HasSuffix(f.Name, ".yml") {
				if _, err := config.Parse(f.Name, f.Data); err == nil {
					files[s+":"+f.Name] = f.Data
				}
			}
		}
	}
	if len(files) < 8 {
		t.Fatalf("%d configurations found", len(files))
	}
	for name, data := range files {
		if _, err := config.Parse(name, data); err != nil && !strings.Contains(name, ".txtar:") {
			t.Errorf("%s: mcp-audit refuses it: %v", name, err)
		}
		if err := Validate(Config, yamlToJSON(t, data)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, bad := range map[string]string{
		"an unknown setting":     "servers:\n  a:\n    target: npm:a\n    frobnicate: 1\n",
		"a bad network":          "network: closed\nservers:\n  a: {target: npm:a}\n",
		"a duration in words":    "servers:\n  a: {target: npm:a, timeout: 2 minutes}\n",
		"no target":              "servers:\n  a: {bin: x}\n",
		"target and server.json": "servers:\n  a: {target: npm:a, server_json: s.json}\n",
		"no servers":             "fail_on: high\n",
		"a bad severity":         "fail_on: severe\nservers:\n  a: {target: npm:a}\n",
	} {
		if _, err := config.Parse("bad.yml", []byte(bad)); err == nil {
			t.Errorf("%s: mcp-audit accepts it", name)
		}
		if Validate(Config, yamlToJSON(t, []byte(bad))) == nil {
			t.Errorf("%s passes the schema", name)
		}
	}
}

// TestConfigSchemaNamesEverySetting: the schema names exactly the
// settings config reads, at the top, per server, under idle and allow: a
// setting added to config fails here until the schema has it (with a
// description, for editor completion).
func TestConfigSchemaNamesEverySetting(t *testing.T) {
	raw, _ := Schema(Config)
	props := func(b []byte) map[string]json.RawMessage {
		var v struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Defs       map[string]json.RawMessage `json:"$defs"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		if v.Properties == nil {
			v.Properties = v.Defs
		}
		return v.Properties
	}
	top := props(raw)
	var defs struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	json.Unmarshal(raw, &defs)
	server := props(defs.Defs["server"])
	allowProps := props(server["allow"])
	for _, c := range []struct {
		what   string
		schema map[string]json.RawMessage
		typ    reflect.Type
		extra  []string
	}{
		{"top-level", top, reflect.TypeFor[config.Config](), []string{"servers"}},
		{"server", server, reflect.TypeFor[config.Server](), nil},
		{"idle", props(top["idle"]), reflect.TypeFor[config.Idle](), nil},
		{"allow", allowProps, reflect.TypeFor[policy.Allow](), nil},
	} {
		want := c.extra
		for i := range c.typ.NumField() {
			if tag, _, _ := strings.Cut(c.typ.Field(i).Tag.Get("yaml"), ","); tag != "" && tag != "-" {
				want = append(want, tag)
			}
		}
		var got []string
		for k, v := range c.schema {
			got = append(got, k)
			if !strings.Contains(string(v), `"description"`) && !strings.Contains(string(v), `"$ref"`) {
				t.Errorf("%s setting %s has no description", c.what, k)
			}
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(want, got) {
			t.Errorf("%s settings: schema %q, config %q", c.what, got, want)
		}
	}
}
