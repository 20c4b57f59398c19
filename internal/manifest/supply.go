package manifest

// PhaseDependencies is the phase of the findings about the resolved
// dependency tree and what registries say of it: no phase of the run, but
// what the install brought.
const PhaseDependencies = "dependencies"

// MCP registry statuses of a server entry (MCPRegistryEntry.Status).
const (
	RegistryActive     = "active"
	RegistryDeprecated = "deprecated"
	RegistryDeleted    = "deleted"
)

// MCPRegistryEntry is what an MCP registry says of the server's entry
// (its server.json): the name and version asked for, and the status the
// registry gives it. A deleted entry is a finding: registries delete
// entries that were malicious or taken over.
type MCPRegistryEntry struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	Status  string `json:"status"`
	// Source is where the status was read: "registry" (asked) or
	// "server.json" (the file's own metadata).
	Source string `json:"source"`
}
