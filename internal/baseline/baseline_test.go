package baseline

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

func TestWriteVersionsNewest(t *testing.T) {
	dir := t.TempDir()
	for _, v := range []string{"1.0.9", "1.0.10", "1.0.2", "2.0.0-rc.1"} {
		man := &m.Manifest{SchemaVersion: 1, Target: m.Target{Ecosystem: "npm", Name: "@acme/mail-mcp", Version: v}, Outcome: m.Outcome{Status: m.StatusOK},
			Run: m.Run{StartedAt: "now", DurationMS: 5}}
		p, err := Write(dir, man)
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(dir, "npm", "@acme", "mail-mcp", v+".json"); p != want {
			t.Errorf("path %s, want %s", p, want)
		}
	}
	vs, err := Versions(dir, "npm", "@acme/mail-mcp")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"1.0.2", "1.0.9", "1.0.10", "2.0.0-rc.1"}, vs); diff != "" {
		t.Errorf("versions (-want +got):\n%s", diff)
	}
	if n, _ := Newest(dir, "npm", "@acme/mail-mcp"); n != "2.0.0-rc.1" {
		t.Errorf("newest %s", n)
	}
	got, err := Load(dir, "npm", "@acme/mail-mcp", "1.0.10")
	if err != nil || got.Run.StartedAt != "" || got.Target.Version != "1.0.10" {
		t.Errorf("load: %+v %v (the run block must not be stored)", got, err)
	}
	if n, err := Newest(dir, "npm", "other"); n != "" || err != nil {
		t.Errorf("no baseline: %q %v", n, err)
	}
}

func TestPathRejectsEscapes(t *testing.T) {
	for _, name := range []string{"../x", "a/../../b", "a/b/c", "x/y", ""} {
		if _, err := Path(t.TempDir(), "npm", name, "1.0.0"); !errors.Is(err, ErrBadName) {
			t.Errorf("%q: %v", name, err)
		}
	}
	if _, err := Path(t.TempDir(), "npm", "x", "../../etc/passwd"); !errors.Is(err, ErrBadName) {
		t.Errorf("version escape: %v", err)
	}
}

// TestVersionsPEP440: pypi baselines are ordered by PEP 440 (1.0rc1 before
// 1.0, 1.0.post1 after it, 1.10 after 1.9), which semver cannot read.
func TestVersionsPEP440(t *testing.T) {
	dir := t.TempDir()
	for _, v := range []string{"1.10", "1.0.post1", "1.9", "1.0", "1.0rc1"} {
		man := &m.Manifest{SchemaVersion: m.SchemaVersion, Target: m.Target{Ecosystem: "pypi", Name: "x", Version: v}}
		if _, err := Write(dir, man); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Versions(dir, "pypi", "x")
	if want := []string{"1.0rc1", "1.0", "1.0.post1", "1.9", "1.10"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Versions = %v, %v; want %v", got, err, want)
	}
}
