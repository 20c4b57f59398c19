package policy

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// signClasses maps a class of the tables (testdata/injection/README) to
// the rules whose signs count for it.
var signClasses = map[byte][]string{
	'I': {"overrides other instructions"},
	'H': {"asks to keep something from the user", "asks to keep a step from the user"},
	'R': {"asks to read local files", "asks for secrets", "asks to pass private data", "asks to pass the conversation"},
	'C': {"tells the model to run a command"},
	'S': {"sets rules for other tools", "asks for a step before this tool is used"},
	'A': {"addresses the model", "poses as the model's prompt format", "hides a comment addressed to the model", "hidden instruction tag"},
}

type tableCase struct {
	class byte // 0: benign
	text  string
	line  int
	own   []string // the server's own tool names ("-@a,b text")
}

func readTable(t *testing.T, path string) []tableCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []tableCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		text := strings.ReplaceAll(strings.TrimSpace(line[2:]), `\n`, "\n")
		switch {
		case line[0] == '+' && signClasses[line[1]] != nil:
			out = append(out, tableCase{line[1], text, n, nil})
		case line[0] == '-' && line[1] == '@':
			names, rest, _ := strings.Cut(line[2:], " ")
			out = append(out, tableCase{0, strings.ReplaceAll(rest, `\n`, "\n"), n, strings.Split(names, ",")})
		case line[0] == '-':
			out = append(out, tableCase{0, text, n, nil})
		default:
			t.Fatalf("%s:%d: bad line %q", path, n, line)
		}
	}
	return out
}

// hasClass reports whether a sign of the class is among signs.
func hasClass(signs []string, class byte) bool {
	for _, s := range signs {
		for _, what := range signClasses[class] {
			if strings.HasPrefix(s, what) {
				return true
			}
		}
	}
	return false
}

// TestInjectionTables: per language, every paraphrase of a request is
// caught with a sign of its class (as a message, and as a description but
// for the model addressed, which descriptions are for), and no benign
// description gives a sign either way. It logs the counts per language.
func TestInjectionTables(t *testing.T) {
	files, _ := filepath.Glob("testdata/injection/*.txt")
	if len(files) < 13 {
		t.Fatalf("%d language tables, want at least 13", len(files))
	}
	sort.Strings(files)
	for _, path := range files {
		lang := strings.TrimSuffix(filepath.Base(path), ".txt")
		caught, bad, benign, fp := 0, 0, 0, 0
		for _, c := range readTable(t, path) {
			asMessage := InjectionSignsIn(c.text, TextContext{Own: c.own})
			asDeclared := InjectionSignsIn(c.text, TextContext{Declared: true, Own: c.own})
			if c.class == 0 {
				benign++
				if len(asMessage) > 0 || len(asDeclared) > 0 {
					fp++
					t.Errorf("%s:%d: false positive %q: %q %q", path, c.line, c.text, asMessage, asDeclared)
				}
				continue
			}
			bad++
			ok := hasClass(asMessage, c.class) && (c.class == 'A' || hasClass(asDeclared, c.class))
			if ok {
				caught++
			} else {
				t.Errorf("%s:%d: class %c not caught in %q: %q %q", path, c.line, c.class, c.text, asMessage, asDeclared)
			}
		}
		t.Logf("%s: caught %d/%d, false positives %d/%d", lang, caught, bad, fp, benign)
	}
}

// FuzzInjectionSigns: any text, in any context, is judged without panic
// (the text is the server's).
func FuzzInjectionSigns(f *testing.F) {
	files, _ := filepath.Glob("testdata/injection/*.txt")
	for _, path := range files {
		data, _ := os.ReadFile(path)
		for _, line := range strings.Split(string(data), "\n") {
			if len(line) > 2 && line[0] != '#' {
				f.Add(strings.ReplaceAll(line[2:], `\n`, "\n"), line[0] == '+')
			}
		}
	}
	f.Fuzz(func(t *testing.T, text string, declared bool) {
		InjectionSignsIn(text, TextContext{Declared: declared, Own: []string{"send_email", "login"}})
	})
}
