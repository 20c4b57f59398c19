package target

import (
	"archive/tar"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func tarOf(t *testing.T, entries []tar.Header, bodies map[string]string) io.Reader {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range entries {
		h := h
		body := bodies[h.Name]
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(body))
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		io.WriteString(tw, body)
	}
	tw.Close()
	return &buf
}

// TestExtractTreeHostile: the installed tree comes from a container that
// ran package code; nothing in it may land outside dst.
func TestExtractTreeHostile(t *testing.T) {
	outside := t.TempDir()
	cases := map[string][]tar.Header{
		"dotdot":        {{Name: "work/../../" + filepath.Base(outside) + "/x", Typeflag: tar.TypeReg, Mode: 0o644}},
		"absolute link": {{Name: "work/l", Typeflag: tar.TypeSymlink, Linkname: outside}, {Name: "work/l/x", Typeflag: tar.TypeReg, Mode: 0o644}},
		"escaping link": {{Name: "work/l", Typeflag: tar.TypeSymlink, Linkname: "../../../../../../" + outside}, {Name: "work/l/x", Typeflag: tar.TypeReg, Mode: 0o644}},
		"through link":  {{Name: "work/a", Typeflag: tar.TypeSymlink, Linkname: "b"}, {Name: "work/a/x", Typeflag: tar.TypeReg, Mode: 0o644}},
		"hard link":     {{Name: "work/h", Typeflag: tar.TypeLink, Linkname: "/etc/passwd"}},
		"chained links": {{Name: "work/d/", Typeflag: tar.TypeDir, Mode: 0o755}, {Name: "work/d/l1", Typeflag: tar.TypeSymlink, Linkname: ".."},
			{Name: "work/d/l2", Typeflag: tar.TypeSymlink, Linkname: "l1/.."}, {Name: "work/d/l2/x", Typeflag: tar.TypeReg, Mode: 0o644}},
	}
	for name, entries := range cases {
		t.Run(name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "out")
			err := ExtractTree(tarOf(t, entries, nil), dst, "work")
			if _, serr := os.Stat(filepath.Join(outside, "x")); serr == nil {
				t.Fatalf("wrote outside the tree (err %v)", err)
			}
			filepath.Walk(dst, func(p string, info os.FileInfo, _ error) error {
				if info != nil && info.Mode()&os.ModeSymlink != 0 {
					l, _ := os.Readlink(p)
					if !insideTree(strings.TrimPrefix(p, dst+"/"), l) {
						t.Errorf("kept escaping link %s -> %s", p, l)
					}
				}
				if info != nil && info.Mode().IsRegular() && info.Name() == "h" {
					t.Errorf("kept a hard link")
				}
				return nil
			})
		})
	}
}

func TestExtractTreeKeepsPackage(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "out")
	err := ExtractTree(tarOf(t, []tar.Header{
		{Name: "work/", Typeflag: tar.TypeDir, Mode: 0o755},
		{Name: "work/node_modules/leaf/cli.js", Typeflag: tar.TypeReg, Mode: 0o755},
		{Name: "work/node_modules/.bin/leaf", Typeflag: tar.TypeSymlink, Linkname: "../leaf/cli.js"},
	}, map[string]string{"work/node_modules/leaf/cli.js": "hi"}), dst, "work")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "node_modules/.bin/leaf")); err != nil || string(b) != "hi" {
		t.Errorf("bin link: %q %v", b, err)
	}
}

func TestUnfetchableKind(t *testing.T) {
	for spec, want := range map[string]string{
		"^1.2.0": "", "1.0.0": "", "latest": "", "npm:other@^1": "", ">=1 <2": "", "*": "",
		"git+https://git.example/x.git": "git", "github:user/repo": "git", "user/repo": "git", "user/repo#v1": "git",
		"https://files.example/x.tgz": "a URL", "file:../x": "a local path", "link:./y": "a local path", "/abs/dir": "a local path",
	} {
		if got := unfetchableKind(spec); got != want {
			t.Errorf("%q: got %q, want %q", spec, got, want)
		}
	}
}

// TestGate: the gate forwards GET to the configured registry with its
// token, points tarballs back at itself, and refuses everything else.
func TestGate(t *testing.T) {
	var sawAuth, sawCookie string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawAuth, sawCookie = r.Header.Get("Authorization"), r.Header.Get("Cookie")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"versions":{"1.0.0":{"dist":{"tarball":"`+"http://"+r.Host+`/p/-/p-1.0.0.tgz"}}}}`)
	}))
	defer up.Close()
	cfg := NPMConfig{Registry: up.URL + "/", Scoped: map[string]string{}, tokens: map[string]string{"//" + strings.TrimPrefix(up.URL, "http://") + "/": "tok"}}
	g := newRegistryGate(cfg, up.Client())
	gate := httptest.NewServer(nil)
	defer gate.Close()
	gate.Config.Handler = g.handler(gate.URL)
	args := g.npmArgs(gate.URL, cfg)
	reg := strings.TrimPrefix(args[0], "--registry=")
	req, _ := http.NewRequest("GET", reg+"p", nil)
	req.Header.Set("Cookie", "from-container")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	if !strings.Contains(string(body), reg+"p/-/p-1.0.0.tgz") || strings.Contains(string(body), up.URL) {
		t.Errorf("tarball not rewritten: %s", body)
	}
	if sawAuth != "Bearer tok" || sawCookie != "" {
		t.Errorf("upstream saw auth %q cookie %q", sawAuth, sawCookie)
	}
	for _, bad := range []string{gate.URL + "/p", gate.URL + "/" + g.secret + "/r9/p"} {
		res, err := http.Get(bad)
		if err != nil || res.StatusCode != http.StatusForbidden {
			t.Errorf("%s: want 403, got %v %v", bad, res.StatusCode, err)
		}
	}
	for _, climb := range []string{reg + "%2e%2e/-/whoami", reg + "a/%2E%2E/%2e%2e/x"} {
		if res, err := http.Get(climb); err != nil || res.StatusCode != http.StatusForbidden {
			t.Errorf("%s: want 403", climb)
		}
	}
	if res, _ := http.Post(reg+"p", "text/plain", nil); res.StatusCode != http.StatusForbidden {
		t.Errorf("POST: want 403, got %d", res.StatusCode)
	}
	if len(g.Refused()) != 5 {
		t.Errorf("refused: %v", g.Refused())
	}
}
