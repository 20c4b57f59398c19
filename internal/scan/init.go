package scan

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/check"
	"github.com/mcp-audit/mcp-audit/internal/clientconfig"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/fsutil"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// Initialized is what Init wrote.
type Initialized struct {
	// Path is the mcp-audit.yml written.
	Path string
	// Baselines are the baseline files recorded.
	Baselines []string
	// Refused are the servers whose audited version is harmful or fails:
	// no baseline, and why. NotRecorded are the others without one.
	Refused, NotRecorded []string
}

// Init writes the scan's servers as an mcp-audit.yml at path, each pinned
// to the version its audit resolved (the configured one when it was not
// audited), and records as baselines the manifests of the versions that
// passed, through the same guard as `baseline update` (a harmful finding
// is refused whatever the threshold), so that check works from the next
// day on. No value of a client file is written (clientconfig.Write).
func Init(res *Result, path, home string) (*Initialized, error) {
	versions := map[string]string{}
	for name, a := range res.Audited {
		if a.Version != "" {
			versions[name] = a.Version
		}
	}
	data, err := clientconfig.Write(res.Plan.Scan.Servers, clientconfig.WriteOptions{Dir: filepath.Dir(path), Home: home, Versions: versions})
	if errors.Is(err, clientconfig.ErrNoServers) {
		return nil, fmt.Errorf("%w: %w: nothing to write to %s", verdict.ErrUsage, err, path)
	}
	if err != nil {
		return nil, err
	}
	if err := fsutil.WriteFileAtomic(path, data); err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		return nil, fmt.Errorf("reading back %s: %w", path, err)
	}
	out := &Initialized{Path: path}
	for _, r := range res.Reports {
		out.record(cfg, res, r.Server)
	}
	return out, nil
}

// record records one server's baseline, or says why not.
func (in *Initialized) record(cfg *config.Config, res *Result, name string) {
	a, ok := res.Audited[name]
	switch {
	case cfg.Server(name) == nil:
		return // remote or unrecognised: listed in the file's comment
	case !ok:
		in.NotRecorded = append(in.NotRecorded, name+": not audited")
		return
	case a.Verdict == m.VerdictIncomplete:
		in.NotRecorded = append(in.NotRecorded, name+": its audit is incomplete; a baseline of what was not observed would excuse it later")
		return
	case a.Verdict == m.VerdictFail:
		in.Refused = append(in.Refused, name+": "+refusal(cfg, a.Manifest))
		return
	}
	written, err := check.RecordManifests(cfg, []string{a.Manifest}, "")
	if err != nil {
		in.Refused = append(in.Refused, name+": "+err.Error())
		return
	}
	in.Baselines = append(in.Baselines, written...)
}

// refusal names the harmful findings of a failing manifest, else says it
// fails its policy.
func refusal(cfg *config.Config, path string) string {
	man, err := readManifest(path)
	if err != nil {
		return err.Error()
	}
	harmful := check.HarmfulFor(cfg, man)
	if len(harmful) == 0 {
		return "version " + man.Target.Version + " fails its policy; not recorded as a baseline"
	}
	var what []string
	for i, f := range harmful {
		if i == 3 {
			what = append(what, fmt.Sprintf("and %d more", len(harmful)-3))
			break
		}
		what = append(what, f.Summary+" ["+f.Where()+"]")
	}
	return "harmful findings, not recorded as a baseline: " + strings.Join(what, "; ")
}
