package buildinfo

import (
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	if v := Version(); v == "" || strings.ContainsAny(v, " \n") {
		t.Errorf("Version() = %q", v)
	}
	version = "v1.2.3"
	defer func() { version = "" }()
	if Version() != "v1.2.3" || Tool() != "mcp-audit v1.2.3" {
		t.Errorf("stamped version: %q %q", Version(), Tool())
	}
}
