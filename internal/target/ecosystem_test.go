package target

import (
	"strings"
	"testing"
)

// TestEcosystemTable: every kind has one ecosystem; pins and baseline keys
// are written as the rest of the tool reads them back.
func TestEcosystemTable(t *testing.T) {
	for _, k := range []string{KindNPM, KindPyPI, KindOCI, KindDir, KindTarball, KindWheel, KindSdist, KindPyDir} {
		n := 0
		for _, e := range ecosystems {
			for _, ek := range e.Kinds {
				if ek == k {
					n++
				}
			}
		}
		if n != 1 {
			t.Errorf("kind %s is in %d ecosystems", k, n)
		}
	}
	for _, tc := range []struct{ kind, name, version, pin string }{
		{KindNPM, "@scope/x", "1.2.3", "npm:@scope/x@1.2.3"},
		{KindPyPI, "My_Pkg", "1.0", "pypi:My_Pkg@==1.0"},
		{KindOCI, "registry.example/x", "1.0.0", "oci:registry.example/x:1.0.0"},
		{KindOCI, "registry.example/x", "sha256:" + strings.Repeat("ab", 32), "oci:registry.example/x@sha256:" + strings.Repeat("ab", 32)},
		{KindDir, "x", "1", ""},
	} {
		e := Spec{Kind: tc.kind}.Ecosystem()
		got := e.Pin(tc.name, tc.version)
		if got != tc.pin {
			t.Errorf("%s pin = %q, want %q", tc.kind, got, tc.pin)
		}
		if got == "" {
			continue
		}
		s, err := ParseSpec(got)
		if err != nil || s.Kind != tc.kind {
			t.Errorf("%s: %q parses as %+v, %v", tc.kind, got, s, err)
		}
	}
	if eco, name := (Spec{Kind: KindPyPI, Name: "My_Pkg"}).BaselineKey(); eco != "pypi" || name != "my-pkg" {
		t.Errorf("pypi baseline key %s %s", eco, name)
	}
	if e := EcosystemOfRegistryType("Docker"); e == nil || !e.AsShipped {
		t.Errorf("docker registry type: %+v", e)
	}
	if !IsRegistrySpec("pypi:x") || IsRegistrySpec("./npm:x") {
		t.Error("IsRegistrySpec")
	}
	vs := []string{"1.10.0", "not-a-version", "1.2.0"}
	e := EcosystemNamed("npm")
	if e.CompareVersions(vs[0], vs[2]) <= 0 || e.CompareVersions(vs[1], vs[2]) >= 0 {
		t.Error("semver order: non-versions first, then by version")
	}
}
