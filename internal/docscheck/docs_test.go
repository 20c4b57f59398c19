package docscheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// root is the module root, from this package's directory.
const root = "../.."

// exempt lists names that need not be documented, each with its reason.
// It is empty: document a name rather than exempt it.
var exempt = map[string]string{}

func TestDocsNameEverything(t *testing.T) {
	docs := readDocs(t)
	groups := []struct {
		what  string
		names []string
		// form renders a name as it must appear in the docs.
		form func(string) []string
	}{
		{"config key", structTags(t, "yaml", "internal/config", "internal/policy"), word},
		{"manifest field", structTags(t, "json", "internal/manifest"), word},
		{"CLI flag", flags(t, "internal/cli", "cmd/mcp-audit"), flagForms},
		{"Action input", actionKeys(t, "inputs"), word},
		{"Action output", actionKeys(t, "outputs"), word},
		{"finding kind", kinds(t, "internal/policy", "internal/diff"), word},
	}
	for _, g := range groups {
		if len(g.names) == 0 {
			t.Errorf("found no %ss: the test no longer finds them in the code", g.what)
		}
		for _, n := range g.names {
			if _, ok := exempt[g.what+" "+n]; ok {
				continue
			}
			if !slices.ContainsFunc(g.form(n), func(f string) bool { return mentions(docs, f) }) {
				t.Errorf("%s %q is not named in docs/*.md or README.md", g.what, n)
			}
		}
	}
}

func readDocs(t *testing.T) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	var sb strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sb.Write(b)
		sb.WriteByte('\n')
	}
	return sb.String()
}

// mentions reports whether s appears in docs as a whole word: not as part
// of a longer identifier, flag or key.
func mentions(docs, s string) bool {
	re := regexp.MustCompile(`(^|[^A-Za-z0-9_-])` + regexp.QuoteMeta(s) + `($|[^A-Za-z0-9_-])`)
	return re.MatchString(docs)
}

func word(s string) []string { return []string{s} }

func flagForms(name string) []string { return []string{"--" + name, "-" + name} }

// parseDirs parses the non-test Go files under dirs, recursively.
func parseDirs(t *testing.T, dirs ...string) []*ast.File {
	t.Helper()
	var files []*ast.File
	fset := token.NewFileSet()
	for _, d := range dirs {
		err := filepath.WalkDir(filepath.Join(root, d), func(path string, e os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() && e.Name() == "testdata" {
				return filepath.SkipDir
			}
			if e.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			files = append(files, f)
			return nil
		})
		if err != nil {
			t.Fatalf("parsing %s: %v", d, err)
		}
	}
	return files
}

// structTags lists the names in one kind of struct tag, without "-".
func structTags(t *testing.T, key string, dirs ...string) []string {
	var out []string
	for _, f := range parseDirs(t, dirs...) {
		ast.Inspect(f, func(n ast.Node) bool {
			field, ok := n.(*ast.Field)
			if !ok || field.Tag == nil {
				return true
			}
			tag, err := strconv.Unquote(field.Tag.Value)
			if err != nil {
				return true
			}
			name, _, _ := strings.Cut(reflect.StructTag(tag).Get(key), ",")
			if name != "" && name != "-" && !slices.Contains(out, name) {
				out = append(out, name)
			}
			return true
		})
	}
	slices.Sort(out)
	return out
}

// flagMethods are the flag.FlagSet methods that define a flag, with the
// position of the flag's name among their arguments.
var flagMethods = map[string]int{
	"String": 0, "Bool": 0, "Int": 0, "Int64": 0, "Uint": 0, "Uint64": 0, "Float64": 0, "Duration": 0, "Func": 0, "BoolFunc": 0,
	"StringVar": 1, "BoolVar": 1, "IntVar": 1, "Int64Var": 1, "UintVar": 1, "Uint64Var": 1, "Float64Var": 1, "DurationVar": 1,
	"Var": 1, "TextVar": 1,
}

// flags lists the flags defined with a literal name anywhere in dirs.
func flags(t *testing.T, dirs ...string) []string {
	var out []string
	for _, f := range parseDirs(t, dirs...) {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pos, ok := flagMethods[sel.Sel.Name]
			if !ok || len(call.Args) < pos+3 {
				return true // a flag definition has name, default or value, and usage
			}
			lit, ok := call.Args[pos].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			name, err := strconv.Unquote(lit.Value)
			if err == nil && name != "" && !slices.Contains(out, name) {
				out = append(out, name)
			}
			return true
		})
	}
	slices.Sort(out)
	return out
}

// kinds lists the values of the constants named Kind… (finding kinds,
// which are also the SARIF rule ids).
func kinds(t *testing.T, dirs ...string) []string {
	var out []string
	for _, f := range parseDirs(t, dirs...) {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if !strings.HasPrefix(n.Name, "Kind") || i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						v, _ := strconv.Unquote(lit.Value)
						out = append(out, v)
					}
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// actionKeys lists the inputs or outputs of action.yml.
func actionKeys(t *testing.T, section string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs  map[string]any `yaml:"inputs"`
		Outputs map[string]any `yaml:"outputs"`
	}
	if err := yaml.Unmarshal(b, &action); err != nil {
		t.Fatalf("reading action.yml: %v", err)
	}
	keys := action.Inputs
	if section == "outputs" {
		keys = action.Outputs
	}
	var out []string
	for k := range keys {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
