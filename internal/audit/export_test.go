package audit

import "github.com/mcp-audit/mcp-audit/internal/variant"

// ClientEnvFor is the client environment a run of the package version
// seed gets under the secret, for end-to-end tests that need to know
// which client profile a run gets.
func ClientEnvFor(secret variant.Secret, seed string, run int) []string {
	return variant.PickProfile(secret.Seed(seed, "client"), run).Env(variant.Canonical, Workspace)
}
