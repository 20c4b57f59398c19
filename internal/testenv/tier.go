package testenv

import (
	"os"
	"testing"
)

// The variables that turn a skipped end-to-end test into a failure: CI
// and `make test` set them, so an engine or browser that went missing
// fails the run instead of passing it quietly.
const (
	RequireDocker   = "MCP_AUDIT_REQUIRE_DOCKER"
	RequireChromium = "MCP_AUDIT_REQUIRE_CHROMIUM"
)

// EndToEnd marks a test as one of the end-to-end tier: it needs a Docker
// engine or a browser and lives in a *_e2e_test.go file (the structure
// checker enforces the name). Under -short it is skipped, which is the
// whole of the unit tier's promise: `go test -short ./...` starts no
// container, image, network or volume. Every helper of this package that
// reaches an engine or a browser calls it first, so a test cannot forget.
// With a require variable set, a skip is a failure: a tier that was asked
// for and did not run must not look green.
func EndToEnd(t testing.TB, require string) {
	t.Helper()
	if !testing.Short() {
		return
	}
	if require != "" && os.Getenv(require) != "" {
		t.Fatalf("%s is set, but -short skips end-to-end tests: run without -short", require)
	}
	t.Skip("end-to-end test: skipped under -short (make test-unit); make test-e2e runs it")
}
