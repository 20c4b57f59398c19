package sink

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadFields: the fields a package's code destructures from or reads
// off an API answer, from its own files only (not its dependencies'),
// sorted and without duplicates.
func TestReadFields(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	pkg := filepath.Join(root, "node_modules", "@acme", "chart-mcp")
	write := func(rel, body string) {
		p := filepath.Join(pkg, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("build/generate.js", `const response = yield httpClient.post(url, body);
        const { success, errorMessage, resultObj } = response.data;
        if (!success) { throw new Error(errorMessage); }`)
	write("dist/search.mjs", `const { results: hits = [], next_page } = await res.json();
        console.log(res.data.total_count, resp.body.items.length);`)
	write("node_modules/dep/index.js", `const { depOnly } = response.data;`)
	write("lib/trace.js", `const { frame, scriptId } = event.args.data; const rd = res.body.getReader();`)
	write("dist/types.js", `import { z } from "zod";
export const Issue = z.object({ state: z.string(), head: GitHubRefSchema, });
export const PR = z.object({ diff_url: z.string(), draft: z.boolean(), state: z.enum(["APPROVED", "PENDING"]),
    labels: z.array(Label), total_count: z.number(), kind: z.literal('file'), error: z.string().optional() });`)
	write("README.md", `const { notCode } = response.data;`)
	got := ReadFields(root, filepath.Join("node_modules", "@acme", "chart-mcp"))
	want := []string{"diff_url:string", "draft:boolean", "error:string", "errorMessage", "head:object", "items", "kind:enum=file", "labels:array",
		"next_page", "resultObj", "results", "state:enum=APPROVED", "success", "total_count:number"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
}

// TestReadFieldsBounded: a package of many large files is read only up
// to the limits, and at most maxFields names come back.
func TestReadFieldsBounded(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	var b strings.Builder
	for i := range 300 {
		b.WriteString("const { f")
		b.WriteString(strings.Repeat("x", i%30))
		b.WriteString(string(rune('a' + i%26)))
		b.WriteString(" } = response.data;\n")
	}
	b.WriteString(strings.Repeat("/* padding */", 200000))
	for i := range 3 {
		if err := os.WriteFile(filepath.Join(root, "f"+string(rune('0'+i))+".js"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := ReadFields(root, "."); len(got) == 0 || len(got) > maxFields {
		t.Errorf("%d fields", len(got))
	}
}

// TestFillFields: a shaped answer gets the fields the package reads,
// each with a value its name suggests, and none that reports a failure;
// a field the answer has keeps its value. Without the fields the chart
// server's resultObj is missing, and its tool result has no text.
func TestFillFields(t *testing.T) {
	t.Parallel()
	req := httptest.NewRequest("POST", "https://vis.example/api/gpt-vis", strings.NewReader(`{"type":"line"}`))
	fields := []string{"errorMessage", "resultObj", "success", "total_count", "previewUrl", "isDraft", "records", "id",
		"diff_url:string", "state:enum=APPROVED", "private:boolean", "labels:array", "size:number", "error:string", "full_name:string"}
	body := shapeResponse(req, []byte(`{"type":"line"}`), fields).Body
	for _, want := range []string{`"resultObj":"example-resultobj"`, `"success":true`, `"total_count":0`,
		`"previewUrl":"https://example.com/previewurl"`, `"isDraft":false`, `"records":[]`, `"diff_url":"https://example.com/diff_url"`,
		`"state":"APPROVED"`, `"private":false`, `"labels":[]`, `"size":0`, `"full_name":"example-full_name"`} {
		if !strings.Contains(body, want) {
			t.Errorf("answer lacks %s: %s", want, body)
		}
	}
	if strings.Contains(body, "errorMessage") || strings.Contains(body, `"error"`) {
		t.Errorf("a failure field was filled: %s", body)
	}
	if plain := shapeResponse(req, []byte(`{"type":"line"}`), nil).Body; strings.Contains(plain, "resultObj") {
		t.Errorf("without fields: %s", plain)
	}
	if again := shapeResponse(req, []byte(`{"type":"line"}`), fields).Body; again != body {
		t.Errorf("not the same bytes for the same request")
	}
}
