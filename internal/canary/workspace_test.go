package canary

import (
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestWorkspaceIsARepository: the decoy project is a git repository git
// itself reads as clean, with two commits; two sets differ in every
// file's content and commit ids, not in names; each file's token is a
// content canary the finder finds, also base64-encoded.
func TestWorkspaceIsARepository(t *testing.T) {
	write := func(s *Set) string {
		dir := t.TempDir()
		for _, f := range s.Files {
			rel, ok := strings.CutPrefix(f.Path, "<workspace>/")
			if !ok {
				continue
			}
			p := filepath.Join(dir, rel)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, f.Content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	a, b := GenerateEnv(nil), GenerateEnv(nil)
	names := func(s *Set) (out []string) {
		for _, f := range s.Files {
			if !strings.Contains(f.Path, "/.git/objects/") {
				out = append(out, f.Path+":"+strconv.Itoa(len(f.Content)))
			}
		}
		return out
	}
	if strings.Join(names(a), ",") != strings.Join(names(b), ",") {
		t.Fatal("two sets must have the same files")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := write(a)
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("fsck", "--strict")
	if log := git("log", "--oneline"); strings.Count(log, "\n") != 2 {
		t.Errorf("log:\n%s", log)
	}
	if st := git("status", "--porcelain"); strings.TrimSpace(st) != "" {
		t.Errorf("status not clean:\n%s", st)
	}
	if git("rev-parse", "HEAD") == func() string {
		d := write(b)
		out, _ := exec.Command("git", "-C", d, "rev-parse", "HEAD").Output()
		return string(out)
	}() {
		t.Error("two sets gave the same commit")
	}
	var readme []byte
	for _, f := range a.Files {
		if f.Path == "<workspace>/README.md" {
			readme = f.Content
		}
	}
	hits := NewFinder(a.All()).Find([]byte("upload=" + base64.StdEncoding.EncodeToString(readme)))
	found := false
	for _, h := range hits {
		found = found || h.Canary == ContentPrefix+"<workspace>/README.md"
	}
	if !found {
		t.Errorf("README's content not found base64-encoded: %+v", hits)
	}
}

// TestRegenerate: the run with other secrets gets fresh values of the
// same shapes for every variable and decoy, except the credentials the
// server is given, which keep theirs.
func TestRegenerate(t *testing.T) {
	env := []string{"GITHUB_TOKEN", "OPENAI_API_KEY"}
	s := GenerateEnv(env)
	r := s.Regenerate(env, []string{"GITHUB_TOKEN"})
	if r.Env["GITHUB_TOKEN"] != s.Env["GITHUB_TOKEN"] {
		t.Errorf("the given credential changed")
	}
	if a, b := s.Env["OPENAI_API_KEY"], r.Env["OPENAI_API_KEY"]; a == b || len(a) != len(b) {
		t.Errorf("an undeclared variable %q → %q: want another of the same length", a, b)
	}
	if len(r.Files) != len(s.Files) {
		t.Fatalf("files %d, want %d", len(r.Files), len(s.Files))
	}
	changed, plain := 0, 0
	for i, f := range s.Files {
		if strings.Contains(f.Path, "/.git/") {
			continue // object ids and their compressed sizes follow the contents, as git's do
		}
		plain++
		if r.Files[i].Path != f.Path || len(r.Files[i].Content) != len(f.Content) {
			t.Errorf("%s: shape changed (%s, %d → %d bytes)", f.Path, r.Files[i].Path, len(f.Content), len(r.Files[i].Content))
		}
		if string(r.Files[i].Content) != string(f.Content) {
			changed++
		}
	}
	if changed < plain*2/3 {
		t.Errorf("only %d of %d files changed", changed, plain)
	}
}
