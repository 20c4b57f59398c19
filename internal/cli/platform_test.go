package cli

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// TestSandboxCommandsAreLinuxOnly: on macOS the sandbox commands stop with
// one clear message; the manifest commands still run.
func TestSandboxCommandsAreLinuxOnly(t *testing.T) {
	defer func(o string) { hostOS = o }(hostOS)
	hostOS = "darwin"
	for _, cmd := range []string{"audit", "check", "batch", "image", "sink", "action", "cleanup"} {
		var out, errb bytes.Buffer
		code := Run(context.Background(), []string{cmd, "npm:x@1.0.0"}, nil, &out, &errb, os.Getenv)
		if code != ExitUsage || !strings.Contains(errb.String(), "available only on Linux") {
			t.Errorf("%s on darwin: exit %d, %q", cmd, code, errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := Run(context.Background(), []string{"version"}, nil, &out, &errb, os.Getenv); code != ExitOK {
		t.Errorf("version on darwin: exit %d %s", code, errb.String())
	}
}
