package target

import (
	"errors"
	"strings"
	"testing"
)

func TestParseOCI(t *testing.T) {
	digest := "sha256:" + strings.Repeat("ab", 32)
	for _, tc := range []struct{ in, name, version string }{
		{"oci:fixture", "fixture", ""},
		{"oci:mcp/fetch:1.2", "mcp/fetch", "1.2"},
		{"oci:registry.example:5000/team/server:v2", "registry.example:5000/team/server", "v2"},
		{"oci:registry.example/server@" + digest, "registry.example/server", digest},
		{"oci:localhost:5000/a_b/c-d", "localhost:5000/a_b/c-d", ""},
	} {
		s, err := ParseSpec(tc.in)
		if err != nil || s.Kind != KindOCI || s.Name != tc.name || s.Range != tc.version || s.Path != tc.in || s.ImageRef() != strings.TrimPrefix(tc.in, "oci:") {
			t.Errorf("%s: %+v %v", tc.in, s, err)
		}
	}
	for _, bad := range []string{"oci:", "oci:UPPER/case", "oci:a b", "oci:-x", "oci:x@sha256:12", "oci:x;rm", "oci:../x", "oci:" + strings.Repeat("a", 600)} {
		if _, err := ParseSpec(bad); !errors.Is(err, ErrUsage) {
			t.Errorf("%q accepted: %v", bad, err)
		}
	}
}
