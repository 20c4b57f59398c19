package batch

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/export"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// IndexSchema is the version of index.json.
const IndexSchema = 1

// Index is the feed: one entry per audited server version, with stable
// per-version paths a client or registry can fetch before install.
type Index struct {
	SchemaVersion int          `json:"schema_version"`
	GeneratedAt   string       `json:"generated_at"`
	Servers       []IndexEntry `json:"servers"`
}

// IndexEntry describes one audited version.
type IndexEntry struct {
	Server    string         `json:"server"`
	Ecosystem string         `json:"ecosystem"`
	Name      string         `json:"name"`
	Version   string         `json:"version"`
	Status    string         `json:"status"` // the manifest's outcome
	Manifest  string         `json:"manifest"`
	Digest    string         `json:"digest"`
	Verdict   string         `json:"verdict"`
	Counts    map[string]int `json:"counts"`
	ToolHive  string         `json:"toolhive_profile"`
	Docker    string         `json:"docker_allow_hosts"`
	Generated string         `json:"generated_at"`
}

// entry is a record with its manifest loaded.
type entry struct {
	Record
	man *m.Manifest
}

func load(out string) ([]entry, error) {
	rs, err := Records(out)
	if err != nil {
		return nil, err
	}
	var es []entry
	for _, r := range rs {
		e := entry{Record: r}
		if r.Status == StatusDone {
			data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(r.Manifest)))
			if err != nil {
				return nil, err
			}
			if e.man, err = m.Decode(data); err != nil {
				return nil, fmt.Errorf("%s: %w", r.Manifest, err)
			}
		}
		es = append(es, e)
	}
	return es, nil
}

// Publish regenerates index.json, RESULTS.md, report.html and the
// allow-list exports from the records and manifests in out.
func Publish(out string) error {
	es, err := load(out)
	if err != nil {
		return err
	}
	now := time.Now().UTC().Format(time.RFC3339)
	idx := Index{SchemaVersion: IndexSchema, GeneratedAt: now, Servers: []IndexEntry{}}
	for _, e := range es {
		if e.man == nil {
			continue
		}
		base := strings.TrimSuffix(e.Manifest, ".json")
		th, err := export.ToolHive(e.man)
		if err != nil {
			return err
		}
		thPath, dkPath := "profiles/"+strings.TrimPrefix(base, "manifests/")+".toolhive.json", "profiles/"+strings.TrimPrefix(base, "manifests/")+".docker.yaml"
		for p, data := range map[string][]byte{thPath: th, dkPath: export.DockerAllowHosts(e.man)} {
			full := filepath.Join(out, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(full, data, 0o644); err != nil {
				return err
			}
		}
		idx.Servers = append(idx.Servers, IndexEntry{Server: e.Server, Ecosystem: e.Ecosystem, Name: e.Name, Version: e.Version,
			Status: e.Outcome, Manifest: e.Manifest, Digest: e.Digest, Verdict: e.Verdict, Counts: nonNilCounts(e.Counts),
			ToolHive: thPath, Docker: dkPath, Generated: e.man.Run.StartedAt})
	}
	b, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "index.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "RESULTS.md"), results(es, now), 0o644); err != nil {
		return err
	}
	html, err := htmlReport(es, now)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "report.html"), html, 0o644)
}

func nonNilCounts(c map[string]int) map[string]int {
	if c == nil {
		return map[string]int{}
	}
	return c
}

// hostsOf lists "host:port (phase)" of egress endpoints and names looked up.
func hostsOf(man *m.Manifest) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range man.Phases {
		add := func(h string) {
			key := h + " (" + p.Name + ")"
			if !seen[key] {
				seen[key] = true
				out = append(out, key)
			}
		}
		for _, c := range p.Network {
			if c.Category == "egress" {
				h := c.Name
				if h == "" {
					h = c.Address
				}
				add(fmt.Sprintf("%s:%d", h, c.Port))
			}
		}
		for _, d := range p.DNS {
			add(d.Name)
		}
	}
	sort.Strings(out)
	return out
}

// results renders RESULTS.md in the shape of the original study: headline
// counts, then who did what, then the failures with their reasons.
func results(es []entry, now string) []byte {
	var b bytes.Buffer
	var ok, clean, failed []entry
	outbound := map[string][]string{}
	sensitive := map[string][]string{}
	canary := map[string][]string{}
	procs := map[string][]string{}
	injections := map[string][]string{}
	for _, e := range es {
		if e.man == nil {
			failed = append(failed, e)
			continue
		}
		if e.man.Outcome.Status != m.StatusOK {
			failed = append(failed, e)
		} else {
			ok = append(ok, e)
		}
		noteworthy := false
		for _, f := range e.Findings {
			if f.Severity >= policy.Medium {
				noteworthy = true
			}
			label := f.Subject
			if f.Phase != "" {
				label += " [" + f.Phase + "]"
			}
			switch f.Kind {
			case policy.KindHost:
				outbound[e.Server] = append(outbound[e.Server], label)
			case policy.KindSensitive, policy.KindAIConfig, policy.KindPersistence:
				sensitive[e.Server] = append(sensitive[e.Server], f.Summary+": "+label)
			case policy.KindCanary:
				canary[e.Server] = append(canary[e.Server], f.Subject+" ["+f.Phase+"]")
			case policy.KindProcess, policy.KindShell:
				procs[e.Server] = append(procs[e.Server], f.Evidence+" ["+f.Phase+"]")
			case policy.KindTool:
				injections[e.Server] = append(injections[e.Server], f.Subject+": "+f.Evidence)
			}
		}
		if !noteworthy && e.man.Outcome.Status == m.StatusOK {
			clean = append(clean, e)
		}
	}
	fmt.Fprintf(&b, "# mcp-audit results\n\nGenerated %s by mcp-audit from %d server(s). Every server ran in the sandbox: "+
		"startup, every tool, prompt and resource called with synthesized arguments, idle; network in the sinkhole "+
		"unless configured otherwise. A finding is an observation with evidence, not an accusation.\n\n", now, len(es))
	fmt.Fprintf(&b, "## Headline\n\n")
	fmt.Fprintf(&b, "* **%d** ran normally; **%d** of them with no finding at medium or above (clean).\n", len(ok), len(clean))
	fmt.Fprintf(&b, "* **%d** contacted or looked up hosts (outbound, by host below).\n", len(outbound))
	fmt.Fprintf(&b, "* **%d** touched credential, private, shell-startup or AI-client files.\n", len(sensitive))
	fmt.Fprintf(&b, "* **%d** touched a canary (a planted fake credential).\n", len(canary))
	fmt.Fprintf(&b, "* **%d** started processes.\n", len(procs))
	fmt.Fprintf(&b, "* **%d** offer tool or prompt text aimed at the model.\n", len(injections))
	fmt.Fprintf(&b, "* **%d** did not run normally or could not be audited (reasons below).\n", len(failed))
	section := func(title string, mp map[string][]string) {
		if len(mp) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n## %s\n\n", title)
		var names []string
		for n := range mp {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			items := uniq(mp[n])
			fmt.Fprintf(&b, "* **%s**: %s\n", md(n), md(strings.Join(items, "; ")))
		}
	}
	section("Outbound, by server", outbound)
	section("Sensitive files", sensitive)
	section("Canaries", canary)
	section("Processes", procs)
	section("Text aimed at the model", injections)
	if len(failed) > 0 {
		fmt.Fprintf(&b, "\n## Did not run normally\n\n")
		for _, e := range failed {
			status := e.Outcome
			if e.Status == StatusFailed {
				status = "not audited"
			}
			fmt.Fprintf(&b, "* **%s** (%s): %s — %s\n", md(e.Server), md(e.Target), status, md(e.Reason))
		}
	}
	fmt.Fprintf(&b, "\n## All servers\n\n| server | version | status | verdict | critical | high | medium | low |\n|---|---|---|---|---|---|---|---|\n")
	for _, e := range es {
		status := e.Outcome
		if e.Status == StatusFailed {
			status = "not audited"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %d | %d | %d |\n", md(e.Server), md(e.Version), status, e.Verdict,
			e.Counts["critical"], e.Counts["high"], e.Counts["medium"], e.Counts["low"])
	}
	return b.Bytes()
}

func uniq(s []string) []string {
	sort.Strings(s)
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// md escapes text from manifests for Markdown.
func md(s string) string {
	r := strings.NewReplacer("<", "&lt;", ">", "&gt;", "|", "\\|", "*", "\\*", "_", "\\_", "[", "\\[", "]", "\\]", "`", "\\`", "\n", " ")
	return r.Replace(s)
}
