package target

import (
	"net/url"
	"testing"
)

func TestPyVersionOrder(t *testing.T) {
	order := []string{"1.0.dev0", "1.0a1", "1.0a2.dev1", "1.0a2", "1.0b1", "1.0rc1", "1.0", "1.0+local", "1.0.post1", "1.1", "1!0.1"}
	for i := 0; i+1 < len(order); i++ {
		a, _ := ParsePyVersion(order[i])
		b, _ := ParsePyVersion(order[i+1])
		if a.Compare(b) >= 0 {
			t.Errorf("%s should sort before %s", order[i], order[i+1])
		}
	}
	a, _ := ParsePyVersion("1.0")
	b, _ := ParsePyVersion("1.0.0")
	if a.Compare(b) != 0 {
		t.Errorf("1.0 != 1.0.0")
	}
	if v, err := ParsePyVersion("V1.0-Alpha.3"); err != nil || v.String() != "1.0a3" {
		t.Errorf("normalized %v %v", v, err)
	}
	if _, err := ParsePyVersion("latest"); err == nil {
		t.Errorf("latest parsed")
	}
}

func TestPySpecifier(t *testing.T) {
	for _, tc := range []struct {
		spec, version string
		want          bool
	}{
		{"", "1.0", true},
		{"", "2.0rc1", false},
		{">=2.0rc1", "2.0rc1", true},
		{"1.2", "1.2.0", true},
		{"==1.2.*", "1.2.9", true},
		{"==1.2.*", "1.3", false},
		{"!=1.2.*", "1.3", true},
		{">=1,<2", "1.9.9", true},
		{">=1,<2", "2.0", false},
		{"<2", "2.0a1", false},
		{">1.0", "1.0.post1", false},
		{"~=1.4.2", "1.4.9", true},
		{"~=1.4.2", "1.5", false},
		{"~=1.4", "1.9", true},
		{"~=1.4", "2.0", false},
		{"==1.0", "1.0+local", true},
		{"<=1.0", "1.0", true},
		{">1.0", "1.0", false},
	} {
		sp, err := ParsePySpecifier(tc.spec)
		if err != nil {
			t.Fatalf("%q: %v", tc.spec, err)
		}
		v, err := ParsePyVersion(tc.version)
		if err != nil {
			t.Fatal(err)
		}
		if got := sp.Match(v, false); got != tc.want {
			t.Errorf("%q matches %s: %v, want %v", tc.spec, tc.version, got, tc.want)
		}
	}
	for _, bad := range []string{"~=1", ">=x"} {
		if _, err := ParsePySpecifier(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestPickPyFile(t *testing.T) {
	base, _ := url.Parse("http://index.test/simple/demo/")
	files := withVersions(parseSimpleHTML([]byte(`<a href="../../f/demo-1.0.tar.gz#sha256=aa">demo-1.0.tar.gz</a>
<a href="../../f/demo-1.0-py3-none-any.whl#sha256=bb">x</a>
<a href="../../f/demo-1.1-cp311-cp311-manylinux_2_17_x86_64.whl#sha256=cc">x</a>
<a href="../../f/demo-1.2.tar.gz#sha256=dd" data-yanked="">x</a>
<a href="../../f/demo-2.0b1-py3-none-any.whl#sha256=ee">x</a>`), base), "Demo")
	for _, tc := range []struct{ spec, want string }{
		{"", "demo-1.0-py3-none-any.whl"}, // 1.1 has no pure wheel or sdist, 1.2 is yanked, 2.0b1 a prerelease
		{"==1.2", "demo-1.2.tar.gz"},
		{">=2.0b1", "demo-2.0b1-py3-none-any.whl"},
	} {
		f, err := PickPyFile(files, tc.spec, false)
		if err != nil || f.Filename != tc.want {
			t.Errorf("%q: %v %v, want %s", tc.spec, f.Filename, err, tc.want)
		}
		if err == nil && f.URL != "http://index.test/f/"+tc.want {
			t.Errorf("url %s", f.URL)
		}
	}
	if _, err := PickPyFile(files, ">=3", false); err == nil {
		t.Errorf("nothing should match >=3")
	}
}

func TestParseSpecPyPI(t *testing.T) {
	s, err := ParseSpec("pypi:Some_Project@>=1,<2")
	if err != nil || s.Kind != KindPyPI || s.Name != "Some_Project" || s.Range != ">=1,<2" {
		t.Errorf("%+v %v", s, err)
	}
	for _, bad := range []string{"pypi:-x", "pypi:x@>=", "pypi:a b"} {
		if _, err := ParseSpec(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if NormalizePyName("Py_Fixture.Server") != "py-fixture-server" {
		t.Errorf("normalize")
	}
}

func TestPyRequirementsFromRegistryOnly(t *testing.T) {
	for r, ok := range map[string]bool{"requests>=2": true, `tomli; python_version < "3.11"`: true,
		"x @ https://host.test/x.whl": false, "git+https://host.test/x": false, "": false} {
		if err := checkPyRequirement("demo", r); (err == nil) != ok {
			t.Errorf("%q: %v", r, err)
		}
	}
}
