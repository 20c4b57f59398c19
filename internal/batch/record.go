package batch

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/fsutil"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// Record statuses.
const (
	StatusDone   = "done"   // audited; the manifest says how the server ran
	StatusFailed = "failed" // could not be audited (install failed, …)
)

// Record is what the batch knows about one server, written to
// records/<server>.json when it finishes.
type Record struct {
	Server    string `json:"server"`
	Target    string `json:"target"`
	Ecosystem string `json:"ecosystem,omitempty"`
	Name      string `json:"name,omitempty"`
	Version   string `json:"version,omitempty"`
	Status    string `json:"status"`
	// Outcome is the manifest's outcome status (ok, crashed, …).
	Outcome string `json:"outcome,omitempty"`
	// Reason explains a failure or an outcome other than ok.
	Reason   string `json:"reason,omitempty"`
	Manifest string `json:"manifest,omitempty"` // path relative to the results directory
	Digest   string `json:"digest,omitempty"`   // sha256 of the manifest file
	Verdict  string `json:"verdict,omitempty"`  // pass, incomplete or fail under the list's policy
	// Coverage is the audit's coverage summary line; Incomplete why its
	// verdict is incomplete.
	Coverage   string         `json:"coverage,omitempty"`
	Incomplete []string       `json:"incomplete,omitempty"`
	Counts     map[string]int `json:"counts,omitempty"`
	// Findings under the list's policy (its fail_on and allow-lists), so
	// a merge needs only the records and manifests.
	Findings []policy.Finding `json:"findings,omitempty"`
	Seconds  float64          `json:"seconds,omitempty"`
	// AuditedAt is when the audit finished (RFC 3339, UTC).
	AuditedAt string `json:"audited_at,omitempty"`
}

var safeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// recordPath maps a server name to its record file. Names that are not
// plain file names get a hash suffix, so distinct names never share a file.
func recordPath(out, server string) string {
	name := server
	if !safeName.MatchString(server) {
		sum := sha256.Sum256([]byte(server))
		clean := strings.Map(func(r rune) rune {
			if r < 128 && (r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				return r
			}
			return '_'
		}, server)
		if len(clean) > 60 {
			clean = clean[:60]
		}
		name = strings.TrimLeft(clean, ".") + "~" + hex.EncodeToString(sum[:6])
	}
	return filepath.Join(out, "records", name+".json")
}

// checkRecord rejects records that do not describe a finished or failed
// audit with a manifest inside the results directory. Records of a shard
// come from another job's artifact: they are input, not trusted.
func checkRecord(r *Record) error {
	if r.Server == "" {
		return errors.New("record without server")
	}
	switch r.Status {
	case StatusDone:
		p := r.Manifest
		if !strings.HasPrefix(p, "manifests/") || !strings.HasSuffix(p, ".json") || path.Clean(p) != p || strings.Contains(p, "..") || strings.Contains(p, "\\") {
			return fmt.Errorf("record %s: manifest path %q is not under manifests/", r.Server, p)
		}
	case StatusFailed:
		if r.Manifest != "" {
			return fmt.Errorf("record %s: a failed record has no manifest", r.Server)
		}
	default:
		return fmt.Errorf("record %s: unknown status %q", r.Server, r.Status)
	}
	return nil
}

func readRecord(out, server string) (*Record, error) {
	b, err := os.ReadFile(recordPath(out, server))
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	if err := checkRecord(&r); err != nil || r.Server != server {
		return nil, fmt.Errorf("invalid record for %s", server)
	}
	if r.Status == StatusDone {
		if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(r.Manifest))); err != nil {
			return nil, errors.New("record without manifest")
		}
	}
	return &r, nil
}

func writeRecord(out string, r Record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(recordPath(out, r.Server), append(b, '\n'))
}

// Records reads every record of a results directory, sorted by server.
func Records(out string) ([]Record, error) {
	files, err := filepath.Glob(filepath.Join(out, "records", "*.json"))
	if err != nil {
		return nil, err
	}
	var rs []Record
	seen := map[string]bool{}
	for _, f := range files {
		b, err := fsutil.ReadFileBounded(f, maxRecord)
		if err != nil {
			return nil, err
		}
		var r Record
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if err := checkRecord(&r); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if seen[r.Server] {
			return nil, fmt.Errorf("%s: a second record for server %s", f, r.Server)
		}
		seen[r.Server] = true
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].Server < rs[j].Server })
	return rs, nil
}

// Bounds on files read back from a results directory.
const (
	maxRecord   = 4 << 20
	maxManifest = 64 << 20
)
