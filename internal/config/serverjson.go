package config

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/mcp-audit/mcp-audit/internal/target"
)

// serverJSON is the part of an MCP registry server.json mcp-audit uses.
// Field names follow the registry schema (camelCase); the snake_case of
// earlier drafts is accepted too.
type serverJSON struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Status is the entry's status in server.json files of earlier
	// schemas; Meta carries the registry's own (registryMeta).
	Status   string                     `json:"status"`
	Meta     map[string]json.RawMessage `json:"_meta"`
	Packages []struct {
		RegistryType     string        `json:"registryType"`
		RegistryTypeOld  string        `json:"registry_type"`
		RegistryName     string        `json:"registry_name"`
		Identifier       string        `json:"identifier"`
		NameOld          string        `json:"name"`
		Version          string        `json:"version"`
		PackageArguments []argJSON     `json:"packageArguments"`
		PackageArgsOld   []argJSON     `json:"package_arguments"`
		Env              []envJSON     `json:"environmentVariables"`
		EnvOld           []envJSON     `json:"environment_variables"`
		Transport        transportJSON `json:"transport"`
	} `json:"packages"`
}

type argJSON struct {
	Type    string `json:"type"` // positional or named
	Name    string `json:"name"`
	Value   string `json:"value"`
	Default string `json:"default"`
}

type envJSON struct {
	Name     string `json:"name"`
	IsSecret bool   `json:"isSecret"`
	IsSecOld bool   `json:"is_secret"`
	Value    string `json:"value"`
	Default  string `json:"default"`
}

// fromServerJSON fills the server from a registry server.json: the npm
// package and version, its arguments, and its environment variables
// (secrets become canaries; others take their value or default, or a
// canary when they have none, so that the server can start).
func (s *Server) fromServerJSON(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var sj serverJSON
	if err := json.NewDecoder(io.LimitReader(f, 4<<20)).Decode(&sj); err != nil {
		return fmt.Errorf("reading %s: %v", path, err)
	}
	s.Registry = RegistryEntry{Name: sj.Name, Version: sj.Version, Status: registryStatus(sj.Status, sj.Meta)}
	for _, p := range sj.Packages {
		eco := target.EcosystemOfRegistryType(p.RegistryType + p.RegistryTypeOld + p.RegistryName)
		if eco == nil {
			continue
		}
		id := p.Identifier
		if id == "" {
			id = p.NameOld
		}
		if id == "" {
			return fmt.Errorf("%s: npm package without identifier", path)
		}
		s.Target = eco.Spec(id)
		switch {
		case eco.AsShipped:
			s.Target = ociTarget(id, p.Version)
		case !eco.VersionKeys:
			// A Python target carries its version in the spec; version:
			// and range: are semver, for npm.
			if p.Version != "" {
				s.Target = eco.Pin(id, p.Version)
			}
		case s.Version == "" && s.Range == "":
			s.Version = p.Version
		}
		for _, a := range append(p.PackageArguments, p.PackageArgsOld...) {
			v := a.Value
			if v == "" {
				v = a.Default
			}
			if a.Type == "named" {
				s.Args = append(s.Args, a.Name)
			}
			if v != "" {
				s.Args = append(s.Args, v)
			}
		}
		s.applyTransport(p.Transport)
		for _, e := range append(p.Env, p.EnvOld...) {
			v := e.Value
			if v == "" {
				v = e.Default
			}
			if e.IsSecret || e.IsSecOld || v == "" {
				s.CanaryEnv = append(s.CanaryEnv, e.Name)
				continue
			}
			if s.Env == nil {
				s.Env = map[string]string{}
			}
			if _, set := s.Env[e.Name]; !set {
				s.Env[e.Name] = v
			}
		}
		return nil
	}
	return fmt.Errorf("%s has no npm, pypi or oci package", path)
}
