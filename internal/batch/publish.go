package batch

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/baseline"
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
			data, err := readBounded(filepath.Join(out, filepath.FromSlash(r.Manifest)), maxManifest)
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
			ToolHive: thPath, Docker: dkPath, Generated: e.AuditedAt})
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

// grouped collects, per server, labels with the phases they were seen in.
type grouped map[string]map[string][]string

func (g grouped) add(server, label, phase string) {
	if g[server] == nil {
		g[server] = map[string][]string{}
	}
	g[server][label] = append(g[server][label], phase)
}

// render writes one line per server: each label once, with up to three
// of its phases.
func (g grouped) render(b *bytes.Buffer, title, intro string) {
	if len(g) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## %s\n\n", title)
	if intro != "" {
		fmt.Fprintf(b, "%s\n\n", intro)
	}
	var servers []string
	for s := range g {
		servers = append(servers, s)
	}
	sort.Strings(servers)
	for _, s := range servers {
		var labels []string
		for l := range g[s] {
			labels = append(labels, l)
		}
		sort.Strings(labels)
		var items []string
		for _, l := range labels {
			items = append(items, l+" "+phaseList(g[s][l]))
		}
		fmt.Fprintf(b, "* **%s**: %s\n", md(s), md(strings.Join(items, "; ")))
	}
}

func phaseList(phases []string) string {
	phases = uniq(phases)
	if len(phases) > 3 {
		return fmt.Sprintf("[%s, +%d more]", strings.Join(phases[:3], ", "), len(phases)-3)
	}
	return "[" + strings.Join(phases, ", ") + "]"
}

// destination reduces network evidence ("https POST host/path") to the
// host, so one line per credential and host is enough.
func destination(evidence string) string {
	f := strings.Fields(evidence)
	if len(f) >= 3 && (f[0] == "http" || f[0] == "https") {
		host, _, _ := strings.Cut(f[2], "/")
		return host
	}
	return evidence
}

// unprompted phases run without the audit asking for anything.
func unprompted(phase string) bool { return phase == m.PhaseStartup || phase == m.PhaseIdle }

// results renders RESULTS.md in the shape of the original study: headline
// counts, then who did what, then the failures with their reasons.
func results(es []entry, now string) []byte {
	var b bytes.Buffer
	var ok, clean, failed []entry
	hosts, creds, sensitive, canary, procs, installs, injections := grouped{}, grouped{}, grouped{}, grouped{}, grouped{}, grouped{}, grouped{}
	hostsUnprompted, hostsCalls, hostsInstall := map[string]bool{}, map[string]bool{}, map[string]bool{}
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
			if f.Severity >= policy.Medium && f.Kind != policy.KindCredential {
				noteworthy = true
			}
			switch f.Kind {
			case policy.KindHost:
				hosts.add(e.Server, f.Subject, f.Phase)
				switch {
				case f.Phase == m.PhaseInstall:
					hostsInstall[e.Server] = true
				case unprompted(f.Phase):
					hostsUnprompted[e.Server] = true
				default:
					hostsCalls[e.Server] = true
				}
			case policy.KindCredential:
				creds.add(e.Server, strings.TrimSuffix(f.Subject, " sent")+" → "+destination(f.Evidence), f.Phase)
			case policy.KindSensitive, policy.KindAIConfig, policy.KindPersistence:
				sensitive.add(e.Server, f.Summary+": "+f.Subject, f.Phase)
			case policy.KindCanary:
				canary.add(e.Server, f.Subject, f.Phase)
			case policy.KindProcess, policy.KindShell:
				if f.Phase == m.PhaseInstall {
					installs.add(e.Server, f.Evidence, f.Phase)
				} else {
					procs.add(e.Server, f.Evidence, f.Phase)
				}
			case policy.KindInstallScript:
				installs.add(e.Server, f.Evidence, f.Phase)
			case policy.KindTool:
				injections.add(e.Server, f.Subject+": "+f.Evidence, "description")
			}
		}
		if !noteworthy && e.man.Outcome.Status == m.StatusOK {
			clean = append(clean, e)
		}
	}
	onlyCalls := 0
	for s := range hostsCalls {
		if !hostsUnprompted[s] {
			onlyCalls++
		}
	}
	fmt.Fprintf(&b, "# mcp-audit results\n\nGenerated %s by mcp-audit from %d server(s). Every server ran in the sandbox: "+
		"install scripts, startup, every tool, prompt and resource called with synthesized arguments, idle; network in the "+
		"sinkhole unless configured otherwise, so nothing reached a real host. A finding is an observation with evidence, "+
		"not an accusation.\n\n", now, len(es))
	fmt.Fprintf(&b, "## Headline\n\n")
	fmt.Fprintf(&b, "* **%d** ran normally; **%d** of them with no finding at medium or above (clean).\n", len(ok), len(clean))
	fmt.Fprintf(&b, "* **%d** contacted or looked up hosts unprompted, at startup or idle; **%d** more only when a tool was called; "+
		"**%d** had install scripts that did.\n", len(hostsUnprompted), onlyCalls, len(hostsInstall))
	fmt.Fprintf(&b, "* **%d** sent the credential they were given (a canary standing in for their API key) — where to is listed below.\n", len(creds))
	fmt.Fprintf(&b, "* **%d** touched credential, private, shell-startup or AI-client files.\n", len(sensitive))
	fmt.Fprintf(&b, "* **%d** touched a canary they were not given (a planted fake credential).\n", len(canary))
	fmt.Fprintf(&b, "* **%d** started processes while running (**%d** during install scripts).\n", len(procs), len(installs))
	fmt.Fprintf(&b, "* **%d** offer tool or prompt text aimed at the model.\n", len(injections))
	fmt.Fprintf(&b, "* **%d** did not run normally or could not be audited (reasons below).\n", len(failed))
	hosts.render(&b, "Outbound, by server", "Hosts by name as the sinkhole saw them, with the phases that contacted them (`startup`, `idle`, `call:<tool>`, `install`).")
	creds.render(&b, "Credentials given, and where they went", "")
	sensitive.render(&b, "Sensitive files", "")
	canary.render(&b, "Canaries", "")
	procs.render(&b, "Processes", "")
	installs.render(&b, "Install scripts", "")
	injections.render(&b, "Text aimed at the model", "")
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

// VerifyFeed checks a published results directory the way a consumer of
// the feed would: every index entry's manifest exists at its stable path,
// matches its digest, decodes, and has its allow-list profiles; every
// finished record is in the index.
func VerifyFeed(out string) error {
	b, err := readBounded(filepath.Join(out, "index.json"), maxManifest)
	if err != nil {
		return err
	}
	var idx Index
	if err := json.Unmarshal(b, &idx); err != nil {
		return fmt.Errorf("index.json: %w", err)
	}
	recs, err := Records(out)
	if err != nil {
		return err
	}
	inIndex := map[string]bool{}
	for _, e := range idx.Servers {
		inIndex[e.Server] = true
		data, err := readBounded(filepath.Join(out, filepath.FromSlash(e.Manifest)), maxManifest)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Server, err)
		}
		if sum := sha256.Sum256(data); e.Digest != "sha256:"+hex.EncodeToString(sum[:]) {
			return fmt.Errorf("%s: %s does not match its digest", e.Server, e.Manifest)
		}
		man, err := m.Decode(data)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Server, err)
		}
		p, err := baseline.Path("manifests", man.Target.Ecosystem, man.Target.Name, man.Target.Version)
		if err != nil || filepath.ToSlash(p) != e.Manifest || man.Target.Version != e.Version || man.Target.Name != e.Name {
			return fmt.Errorf("%s: %s holds %s %s", e.Server, e.Manifest, man.Target.Name, man.Target.Version)
		}
		for _, prof := range []string{e.ToolHive, e.Docker} {
			if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(prof))); err != nil {
				return fmt.Errorf("%s: %w", e.Server, err)
			}
		}
	}
	for _, r := range recs {
		if r.Status == StatusDone && !inIndex[r.Server] {
			return fmt.Errorf("%s: audited but not in index.json", r.Server)
		}
	}
	return nil
}
