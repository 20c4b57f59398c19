package sink

import (
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Limits of the scan of a package's code for the fields it reads from API
// answers (the package is hostile: its files are only read, never run).
const (
	maxFieldFiles     = 2000
	maxFieldFileBytes = 2 << 20
	maxFieldBytes     = 32 << 20 // read in all
	maxFields         = 256
)

// ReadFields lists the fields a package's own code reads from the answers
// of the APIs it calls, found in its JavaScript by how such code reads an
// answer: destructured from response.data, from res.body or from what
// res.json() gives (const { success, resultObj } = response.data), or
// read off it (response.data.total_count). The sink adds the missing ones
// to the answers it shapes (FillFields), so code that takes a field no
// generic answer has (mcp-server-chart's resultObj) goes on past its first
// API call. Where the code checks answers with zod schemas
// (z.object({ full_name: z.string(), state: z.enum(["APPROVED", …]) })),
// a field also carries the type its schema asks for: "full_name:string",
// "size:number", "private:boolean", "labels:array", "state:enum=APPROVED"
// (server-github rejects an answer whose pull request lacks diff_url).
// root is the install directory, dir the package's directory in it; the
// package's dependencies (node_modules) are not read. The list is sorted
// by name, one entry a name, at most maxFields long.
func ReadFields(root, dir string) []string {
	base := filepath.Join(root, dir)
	seen := map[string]string{} // name: its type, "" when none is known
	files, total := 0, int64(0)
	_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil || files >= maxFieldFiles || total >= maxFieldBytes {
			return filepath.SkipDir
		}
		if d.IsDir() {
			if d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && p != base {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !isScript(d.Name()) {
			return nil
		}
		files++
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		b, _ := io.ReadAll(io.LimitReader(f, maxFieldFileBytes))
		total += int64(len(b))
		for _, n := range fieldsIn(string(b)) {
			name, typ, _ := strings.Cut(n, ":")
			if t, ok := seen[name]; !ok || t == "" || t == "string" && strings.HasPrefix(typ, "enum=") {
				seen[name] = typ // a type beats none, an enum a plain string
			}
		}
		return nil
	})
	names := slices.Sorted(maps.Keys(seen))
	if len(names) > maxFields {
		names = names[:maxFields]
	}
	out := make([]string, 0, len(names))
	for _, n := range names {
		if t := seen[n]; t != "" {
			n += ":" + t
		}
		out = append(out, n)
	}
	return out
}

func isScript(name string) bool {
	for _, ext := range []string{".js", ".mjs", ".cjs"} {
		if strings.HasSuffix(name, ext) && !strings.HasSuffix(name, ".min.js") {
			return true
		}
	}
	return false
}

var (
	// reDestructure: const { a, b: c, d = 1 } = response.data, = await
	// res.json(), = searchResponse.body; the name before .data or .body
	// says it is an answer (a trace event's args.data is not).
	reDestructure = regexp.MustCompile(`\{([^{}()]{1,400})\}\s*=\s*(?:\(?\s*await\s+)?(?:[A-Za-z_$][\w$]*\.)*([A-Za-z_$][\w$]*)(\.(?:data|body)\b|\.json\(\s*\))`)
	// reReadOff: response.data.total_count, res.body.items (not a method
	// called on it: res.body.getReader()).
	reReadOff  = regexp.MustCompile(`\b([A-Za-z_$][\w$]*)\.(?:data|body)\.([A-Za-z_$][\w$]*)(\s*\()?`)
	reAnswer   = regexp.MustCompile(`^(?:response|res|resp|r|reply|answer|result|[a-z][A-Za-z0-9]*(?:Response|Res|Resp))$`)
	reField    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,39}$`)
	notAFields = []string{"length", "size", "constructor", "prototype", "toString", "valueOf", "then"}
)

// fieldsIn are the fields one file's code reads from answers.
func fieldsIn(src string) []string {
	var out []string
	keep := func(name string) {
		if reField.MatchString(name) && !slices.Contains(notAFields, name) {
			out = append(out, name)
		}
	}
	for _, m := range reDestructure.FindAllStringSubmatch(src, 256) {
		if !strings.HasPrefix(m[3], ".json") && !reAnswer.MatchString(m[2]) {
			continue
		}
		for _, part := range strings.Split(m[1], ",") {
			name, _, _ := strings.Cut(part, ":")
			name, _, _ = strings.Cut(name, "=")
			keep(strings.TrimSpace(name))
		}
	}
	for _, m := range reReadOff.FindAllStringSubmatch(src, 256) {
		if reAnswer.MatchString(m[1]) && m[3] == "" {
			keep(m[2])
		}
	}
	if !strings.Contains(src, "zod") {
		return out
	}
	for _, m := range reZodRef.FindAllStringSubmatch(src, 4096) {
		if reField.MatchString(m[1]) && !slices.Contains(notAFields, m[1]) {
			out = append(out, m[1]+":object")
		}
	}
	for _, m := range reZodField.FindAllStringSubmatch(src, 4096) {
		if !reField.MatchString(m[1]) || slices.Contains(notAFields, m[1]) {
			continue
		}
		typ := m[2]
		switch lit := m[3] + m[4]; {
		case typ == "enum" || typ == "literal":
			if lit == "" || !reField.MatchString(lit) {
				continue
			}
			typ = "enum=" + lit
		case typ == "bigint":
			typ = "number"
		}
		out = append(out, m[1]+":"+typ)
	}
	return out
}

// reZodField: a property of a zod object schema and its type
// (full_name: z.string(), state: z.enum(["APPROVED", …]), kind:
// z.literal('file')).
// reZodRef: a property whose schema is another named one (head:
// GitHubPullRequestRefSchema), an object.
var reZodRef = regexp.MustCompile(`([A-Za-z_$][\w$]*)\s*:\s*[A-Z][\w$]*Schema\s*[,})\n]`)

var reZodField = regexp.MustCompile(`([A-Za-z_$][\w$]*)\s*:\s*z\s*\.\s*(string|number|bigint|boolean|array|enum|literal|object)\s*\(\s*(?:\[\s*)?(?:"([^"]{1,40})"|'([^']{1,40})')?`)

// FillFields adds to a shaped answer the fields the package reads that it
// lacks, each with a value its name suggests: true for a success flag, an
// empty list for a plural, a link for a URL, the answer's id for an id, 0
// for a count, false for a predicate, an empty object for what holds the
// answer's parts (data, metadata), a plain name otherwise; fields that
// report a failure (error, message, code) stay absent, as in an answer
// that succeeded.
//
// A field with a type (ReadFields) gets a value of that type: its name's
// value when that has the type, else an empty string of the name, 0,
// false, an empty list or object, or the enum's first value.
func FillFields(obj map[string]any, fields []string, id any) {
	for _, f := range fields {
		name, typ, _ := strings.Cut(f, ":")
		if _, ok := obj[name]; ok {
			continue
		}
		v, ok := fieldValue(name, id)
		if !ok {
			continue // a failure's field stays absent, whatever a schema says
		}
		if typ != "" && !ofType(v, typ) {
			if v, ok = typed(name, typ); !ok {
				continue
			}
		}
		obj[name] = v
	}
}

// ofType reports whether v has the zod type typ.
func ofType(v any, typ string) bool {
	switch v.(type) {
	case string:
		return typ == "string"
	case bool:
		return typ == "boolean"
	case int, float64:
		return typ == "number"
	case []any:
		return typ == "array"
	case map[string]any:
		return typ == "object"
	}
	return false
}

// typed is the plain value of a zod type.
func typed(name, typ string) (any, bool) {
	switch {
	case typ == "string":
		return "example-" + strings.ToLower(name), true
	case typ == "number":
		return 0, true
	case typ == "boolean":
		return false, true
	case typ == "array":
		return []any{}, true
	case typ == "object":
		return map[string]any{}, true
	case strings.HasPrefix(typ, "enum="):
		return strings.TrimPrefix(typ, "enum="), true
	}
	return nil, false
}

func fieldValue(f string, id any) (any, bool) {
	ws := words(f)
	if len(ws) == 0 {
		return nil, false
	}
	last := ws[len(ws)-1]
	has := func(set ...string) bool {
		return slices.ContainsFunc(ws, func(w string) bool { return slices.Contains(set, w) })
	}
	switch {
	case has("error", "errors", "err", "message", "msg", "code", "warning", "warnings", "reason", "exception", "fault", "failure"):
		return nil, false
	case has("success", "ok", "succeeded", "successful") && len(ws) <= 2:
		return true, true
	case (ws[0] == "is" || ws[0] == "has") && len(ws) > 1:
		return false, true
	case has("url", "uri", "link", "href", "urls"):
		if last == "urls" {
			return []any{}, true
		}
		return "https://example.com/" + strings.ToLower(f), true
	case last == "id":
		return id, true
	case has("count", "total", "size", "length", "num", "number", "page", "pages"):
		return 0, true
	case last == "data" || last == "result" || last == "payload" || last == "meta" || last == "metadata" ||
		last == "attributes" || last == "details" || last == "info" || last == "properties":
		return map[string]any{}, true // what holds the answer's parts
	case isCollection(last) || last == "list" || last == "items":
		return []any{}, true
	}
	return "example-" + strings.ToLower(f), true
}

// words splits a field's name into lower-case words (resultObj: result,
// obj; total_count: total, count).
func words(f string) []string {
	var out []string
	cur := []rune{}
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range f {
		switch {
		case r == '_' || r == '-':
			flush()
			continue
		case r >= 'A' && r <= 'Z' && i > 0:
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	return out
}
