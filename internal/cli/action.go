package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/gh"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

// actionInputs are the inputs of action.yml.
type actionInputs struct {
	Config          string
	FailOn          string
	Network         string
	Comment         bool
	Token           string
	UpdateBaselines bool
	SARIF           string
	Servers         []string
}

func readInputs(a *githubactions.Action) (actionInputs, error) {
	in := actionInputs{
		Config: a.GetInput("config"), FailOn: a.GetInput("fail-on"), Network: a.GetInput("network"),
		Token: a.GetInput("github-token"), SARIF: a.GetInput("sarif"),
	}
	if in.Config == "" {
		in.Config = config.DefaultFile
	}
	var err error
	if in.Comment, err = boolInput(a, "comment", true); err != nil {
		return in, err
	}
	if in.UpdateBaselines, err = boolInput(a, "update-baselines", false); err != nil {
		return in, err
	}
	for _, s := range strings.FieldsFunc(a.GetInput("servers"), func(r rune) bool { return r == ',' || r == '\n' || r == ' ' }) {
		in.Servers = append(in.Servers, s)
	}
	return in, nil
}

func boolInput(a *githubactions.Action, name string, def bool) (bool, error) {
	v := strings.TrimSpace(a.GetInput(name))
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%w: input %s: %q is not true or false", ErrUsage, name, v)
	}
	return b, nil
}

// runAction is the GitHub Action's entrypoint (`mcp-audit action`): it
// reads the inputs and the event, checks the servers the event concerns,
// and reports through the PR comment, the job summary, annotations,
// outputs, SARIF and the exit status. The token is masked first and never
// printed.
func runAction(ctx context.Context, env *Env, args []string) error {
	a := githubactions.New(githubactions.WithWriter(env.Stdout), githubactions.WithGetenv(env.Getenv))
	in, err := readInputs(a)
	if err != nil {
		return err
	}
	if in.Token != "" {
		a.AddMask(in.Token)
	}
	ghctx, err := a.Context()
	if err != nil {
		return fmt.Errorf("%w: reading the GitHub context: %v", ErrUsage, err)
	}
	ws := ghctx.Workspace
	if ws == "" {
		ws = "."
	}
	cfgPath := in.Config
	if !filepath.IsAbs(cfgPath) {
		cfgPath = filepath.Join(ws, cfgPath)
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		a.WithFieldsMap(map[string]string{"file": in.Config}).Errorf("%s", sandbox.Sanitize(err.Error()))
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	opts := CheckOptions{Config: cfgPath, ConfigName: in.Config, FailOn: in.FailOn, Network: in.Network, Format: report.FormatMarkdown, Servers: in.Servers}
	var prNumber int
	switch ghctx.EventName {
	case "pull_request":
		pr, _ := ghctx.Event["pull_request"].(map[string]any)
		prNumber = intField(pr, "number")
		base, _ := field(pr, "base", "sha").(string)
		changed, why := changedServers(ws, in.Config, base, cfg)
		a.Infof("servers to check: %v (%s)", changed, why)
		if len(changed) == 0 {
			a.AddStepSummary("## mcp-audit\n\nThis pull request changes no MCP server.\n")
			a.SetOutput("verdict", "pass")
			a.SetOutput("findings", "0")
			return nil
		}
		if len(opts.Servers) == 0 {
			opts.Servers = changed
		}
	case "schedule", "workflow_dispatch":
		opts.NewReleases = true
		dir, err := os.MkdirTemp("", "mcp-audit-manifests-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		opts.Manifests = dir
	}
	common := commonFlags{image: sandbox.DefaultImage, flavor: sandbox.FlavorAuto}
	reports, err := Check(ctx, env, common, opts)
	if err != nil {
		return err
	}
	var md bytes.Buffer
	if err := report.WriteDiffs(&md, report.FormatMarkdown, reports); err != nil {
		return err
	}
	a.AddStepSummary(md.String())
	reportPath := filepath.Join(orTemp(env.Getenv("RUNNER_TEMP")), "mcp-audit-report.md")
	if err := os.WriteFile(reportPath, md.Bytes(), 0o644); err != nil {
		return err
	}
	a.SetOutput("report", reportPath)
	lines := serverLines(cfg)
	if in.SARIF != "" {
		sp := in.SARIF
		if !filepath.IsAbs(sp) {
			sp = filepath.Join(ws, sp)
		}
		var buf bytes.Buffer
		if err := (report.SARIF{ConfigPath: in.Config, Lines: lines, Version: toolVersion()}).Write(&buf, reports); err != nil {
			return err
		}
		if err := writeFileAtomic(sp, buf.Bytes()); err != nil {
			return err
		}
		a.SetOutput("sarif", sp)
	}
	outputs(a, in.Config, lines, reports)

	if ghctx.EventName == "pull_request" && in.Comment && prNumber > 0 {
		if err := comment(ctx, a, in, ghctx, prNumber, md.String()); err != nil {
			a.Warningf("posting the PR comment: %s", sandbox.Sanitize(err.Error()))
		}
	}
	if opts.Manifests != "" && in.UpdateBaselines {
		if err := proposeBaselines(ctx, a, in, ghctx, ws, cfg, opts.Manifests, md.String()); err != nil {
			a.Warningf("proposing new baselines: %s", sandbox.Sanitize(err.Error()))
		}
	}
	return reportsError(reports)
}

func orTemp(dir string) string {
	if dir == "" {
		return os.TempDir()
	}
	return dir
}

func field(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

func intField(m map[string]any, key string) int {
	f, _ := m[key].(float64)
	return int(f)
}

func serverLines(cfg *config.Config) map[string]int {
	out := map[string]int{}
	for _, s := range cfg.Servers {
		out[s.Name] = s.Line
	}
	return out
}

// outputs sets the step outputs and annotates the configuration lines of
// servers that fail the policy.
func outputs(a *githubactions.Action, cfgRel string, lines map[string]int, reports []report.DiffReport) {
	verdict := "pass"
	counts := map[string]int{}
	total := 0
	for _, r := range reports {
		if r.Error != "" {
			verdict = "error"
			a.WithFieldsMap(map[string]string{"file": cfgRel, "line": strconv.Itoa(lines[r.Server]), "title": "mcp-audit: " + r.Server}).
				Errorf("the audit could not run: %s", sandbox.Sanitize(r.Error))
			continue
		}
		for k, v := range r.Result.Counts {
			counts[k] += v
			total += v
		}
		if r.Result.Verdict == "fail" {
			if verdict == "pass" {
				verdict = "fail"
			}
			for _, f := range r.Result.Findings {
				if f.Severity < r.Result.FailOn {
					continue
				}
				msg := fmt.Sprintf("%s %s: %s", r.Result.New.Name, r.Result.New.Version, f.Summary)
				if f.Evidence != "" {
					msg += " (" + f.Evidence + ")"
				}
				a.WithFieldsMap(map[string]string{"file": cfgRel, "line": strconv.Itoa(lines[r.Server]),
					"title": "mcp-audit: " + r.Server + " " + f.Severity.String()}).Errorf("%s", sandbox.Sanitize(msg))
			}
		}
	}
	a.SetOutput("verdict", verdict)
	a.SetOutput("findings", strconv.Itoa(total))
	for s := policy.Critical; s >= policy.Info; s-- {
		a.SetOutput(s.String(), strconv.Itoa(counts[s.String()]))
	}
}

// ghClient is the GitHub API client for the workflow's repository.
func ghClient(in actionInputs, ghctx *githubactions.GitHubContext) (*gh.Client, error) {
	if in.Token == "" {
		return nil, errors.New("no github-token")
	}
	owner, repo := ghctx.Repo()
	return gh.New(in.Token, ghctx.APIURL, owner, repo)
}

func comment(ctx context.Context, a *githubactions.Action, in actionInputs, ghctx *githubactions.GitHubContext, number int, body string) error {
	c, err := ghClient(in, ghctx)
	if err != nil {
		return err
	}
	created, err := c.UpsertComment(ctx, number, report.MarkdownMarker, body)
	if err != nil {
		return err
	}
	a.Infof("PR comment %s", map[bool]string{true: "created", false: "updated"}[created])
	return nil
}

// proposeBaselines opens (or updates) a pull request that records the
// manifests of the new releases as baselines, with the report as its
// description: merging it is the review.
func proposeBaselines(ctx context.Context, a *githubactions.Action, in actionInputs, ghctx *githubactions.GitHubContext, ws string, cfg *config.Config, manifests, body string) error {
	files := map[string][]byte{}
	baseRel, err := filepath.Rel(ws, cfg.BaselineDir())
	if err != nil {
		return err
	}
	err = filepath.WalkDir(manifests, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		rel, _ := filepath.Rel(manifests, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(filepath.Join(baseRel, rel))] = data
		return nil
	})
	if err != nil {
		return err
	}
	if len(files) == 0 {
		a.Infof("no new releases: no baselines to propose")
		return nil
	}
	c, err := ghClient(in, ghctx)
	if err != nil {
		return err
	}
	base, _ := field(ghctx.Event, "repository", "default_branch").(string)
	if base == "" {
		base = ghctx.RefName
	}
	if base == "" {
		base = "main"
	}
	url, err := c.ProposeFiles(ctx, base, "mcp-audit/baselines", "mcp-audit: baselines for new releases",
		"Baselines for new releases of the MCP servers in "+in.Config+". Review the behavior below; merging records it as trusted.\n\n"+body, files)
	if err != nil {
		return err
	}
	a.SetOutput("pull-request", url)
	a.Infof("proposed %d baseline(s): %s", len(files), url)
	return nil
}

// changedServers lists the servers a pull request adds or changes: their
// entry in the configuration differs from the base commit's, or their
// baselines changed. Without a usable base, every server is checked.
func changedServers(ws, cfgRel, base string, head *config.Config) ([]string, string) {
	all := func(why string) ([]string, string) {
		var names []string
		for _, s := range head.Servers {
			names = append(names, s.Name)
		}
		return names, why
	}
	if base == "" {
		return all("no base commit in the event")
	}
	git := func(args ...string) ([]byte, error) {
		cmd := exec.Command("git", append([]string{"-c", "safe.directory=*", "-C", ws}, args...)...)
		return cmd.Output()
	}
	data, err := git("show", base+":"+filepath.ToSlash(cfgRel))
	if err != nil {
		return all("the base commit has no " + cfgRel)
	}
	baseCfg, err := config.Parse(filepath.Join(ws, cfgRel), data)
	if err != nil {
		return all("the base configuration is invalid")
	}
	changed := map[string]bool{}
	for _, s := range head.Servers {
		if b := baseCfg.Server(s.Name); b == nil || !sameServer(b, s) {
			changed[s.Name] = true
		}
	}
	baseRel, _ := filepath.Rel(ws, head.BaselineDir())
	if out, err := git("diff", "--name-only", base, "HEAD", "--", filepath.ToSlash(baseRel)); err == nil {
		for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			rel, err := filepath.Rel(baseRel, f)
			if err != nil || f == "" {
				continue
			}
			parts := strings.Split(filepath.ToSlash(rel), "/")
			if len(parts) < 3 {
				continue
			}
			name := strings.Join(parts[1:len(parts)-1], "/")
			for _, s := range head.Servers {
				if s.PackageName() == name {
					changed[s.Name] = true
				}
			}
		}
	}
	var names []string
	for _, s := range head.Servers {
		if changed[s.Name] {
			names = append(names, s.Name)
		}
	}
	return names, "changed since " + base
}

func sameServer(a, b *config.Server) bool {
	x, y := *a, *b
	x.Line, y.Line = 0, 0
	return reflect.DeepEqual(x, y)
}

func toolVersion() string {
	var b bytes.Buffer
	runVersion(context.Background(), &Env{Stdout: &b}, nil)
	return strings.TrimSpace(strings.TrimPrefix(b.String(), "mcp-audit "))
}
