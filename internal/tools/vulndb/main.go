// Command vulndb builds a local Go vulnerability database for govulncheck
// from the golang.org/x/vulndb module, because the public database host is
// out of reach here while the module proxy is not.
//
// The module's data/osv holds one OSV entry per file; govulncheck's
// -db file://DIR wants the v1 layout beside them:
//
//	index/db.json       {"modified": T}
//	index/modules.json  [{"path": M, "vulns": [{"id", "modified", "fixed"}]}]
//	ID/GO-YYYY-NNNN.json
//
// Usage: go run ./internal/tools/vulndb -version v0.0.0-… -out DIR
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	version := flag.String("version", "", "version of golang.org/x/vulndb (a pseudo-version pins a commit)")
	out := flag.String("out", "", "directory to write the database to")
	flag.Parse()
	if err := run(*version, *out); err != nil {
		fmt.Fprintln(os.Stderr, "vulndb:", err)
		os.Exit(1)
	}
}

func run(version, out string) error {
	if version == "" || out == "" {
		return errors.New("usage: vulndb -version V -out DIR")
	}
	src, err := download(version)
	if err != nil {
		return err
	}
	stamp, err := pseudoTime(version)
	if err != nil {
		return err
	}
	return build(filepath.Join(src, "data", "osv"), out, stamp)
}

// download fetches the module through the module proxy (and its checksum
// database) and returns its directory in the module cache.
func download(version string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", "golang.org/x/vulndb@"+version)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("downloading golang.org/x/vulndb@%s: %w", version, err)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(b, &info); err != nil {
		return "", fmt.Errorf("reading go mod download output: %w", err)
	}
	if info.Error != "" || info.Dir == "" {
		return "", fmt.Errorf("downloading golang.org/x/vulndb@%s: %s", version, info.Error)
	}
	return info.Dir, nil
}

// pseudoTime is the commit time in a pseudo-version. The entries in
// data/osv carry no modified time (the real database stamps it when it
// publishes), so the snapshot's commit time stands for the database's.
func pseudoTime(version string) (time.Time, error) {
	parts := strings.Split(version, "-")
	if len(parts) < 3 {
		return time.Time{}, fmt.Errorf("version %s is not a pseudo-version", version)
	}
	t, err := time.Parse("20060102150405", parts[len(parts)-2])
	if err != nil {
		return time.Time{}, fmt.Errorf("reading the time of %s: %w", version, err)
	}
	return t.UTC(), nil
}

// entry is the part of an OSV entry the index needs.
type entry struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
	Affected []struct {
		Package struct {
			Name string `json:"name"`
		} `json:"package"`
		Ranges []osvRange `json:"ranges"`
	} `json:"affected"`
}

type osvRange struct {
	Type   string `json:"type"`
	Events []struct {
		Introduced string `json:"introduced"`
		Fixed      string `json:"fixed"`
	} `json:"events"`
}

type moduleVuln struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
	Fixed    string    `json:"fixed,omitempty"`
}

type moduleMeta struct {
	Path  string       `json:"path"`
	Vulns []moduleVuln `json:"vulns"`
}
