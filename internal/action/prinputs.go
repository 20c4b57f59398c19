package action

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcp-audit/mcp-audit/internal/check"
	"github.com/mcp-audit/mcp-audit/internal/config"
)

// On pull_request GitHub runs the workflow file of the pull request, so
// the Action's inputs are the pull request author's as much as the
// configuration is. The inputs that change what the check judges by
// (fail-on and network, which override the configuration; config, which
// names it; servers, which narrows what is checked) are therefore judged
// like the configuration: against the base commit.
//
// The base's value of an input is what the base commit's version of the
// running workflow file (GITHUB_WORKFLOW_REF) gives this action's step in
// this job (GITHUB_JOB), when that is a literal. An input equal to the
// base's stands; one that tightens the policy stands and is shown; one
// that loosens it is replaced by the base's value and is a policy-loosened
// finding, so the merge that makes it the new base is reviewed. When the
// base's value cannot be known (a new workflow file, an expression, two
// steps that disagree), the base's value is the input's default: the
// base commit's configuration decides. Comparing values rather than
// taking the base's outright lets a pull request tighten its own check
// and keeps a reviewed "fail-on: none" (report-only) working.

// maxWorkflowBytes bounds a workflow file read from git.
const maxWorkflowBytes = 1 << 20

// workflowFile is the part of a workflow file the base's inputs are in.
type workflowFile struct {
	Jobs map[string]struct {
		Steps []struct {
			Uses string         `yaml:"uses"`
			With map[string]any `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// baseWorkflowInputs reads the inputs the base commit's version of the
// running workflow gives this action; ok is false when they cannot be
// known. A missing key is an input the base leaves at its default.
func baseWorkflowInputs(ws, base string, getenv func(string) string) (map[string]string, bool) {
	repo, job := getenv("GITHUB_REPOSITORY"), getenv("GITHUB_JOB")
	ref, ok := strings.CutPrefix(getenv("GITHUB_WORKFLOW_REF"), repo+"/")
	if repo == "" || job == "" || !ok {
		return nil, false
	}
	if i := strings.LastIndex(ref, "@"); i >= 0 {
		ref = ref[:i]
	}
	data, err := git(ws, "show", base+":"+path.Clean(ref))
	if err != nil || len(data) > maxWorkflowBytes {
		return nil, false
	}
	var wf workflowFile
	if err := yaml.Unmarshal(data, &wf); err != nil {
		return nil, false
	}
	var found map[string]string
	for _, st := range wf.Jobs[job].Steps {
		if !isThisAction(st.Uses, getenv("GITHUB_ACTION_REPOSITORY")) {
			continue
		}
		with := map[string]string{}
		for k, v := range st.With {
			s := fmt.Sprint(v)
			if strings.Contains(s, "${{") {
				return nil, false
			}
			with[k] = strings.TrimSpace(s)
		}
		if found != nil && !samePolicyInputs(found, with) {
			return nil, false
		}
		found = with
	}
	return found, found != nil
}

// isThisAction reports whether a step's uses: names this action: its
// repository (GITHUB_ACTION_REPOSITORY) at any ref, or a local action.
func isThisAction(uses, actionRepo string) bool {
	name, _, _ := strings.Cut(uses, "@")
	if strings.HasPrefix(name, "./") || name == "." {
		return true
	}
	if actionRepo == "" {
		actionRepo = "mcp-audit/mcp-audit"
	}
	return strings.EqualFold(name, actionRepo) || strings.HasPrefix(strings.ToLower(name), strings.ToLower(actionRepo)+"/")
}

func samePolicyInputs(a, b map[string]string) bool {
	for _, k := range []string{"config", "fail-on", "network", "servers", "allow-incomplete"} {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

// guardInputs judges the policy-bearing inputs of a pull request's run
// against the base's (baseWF, known says whether they could be read) and
// the base configuration, resets a loosening input in o to the base's
// value and returns the changes.
func guardInputs(base *config.Config, o *check.Options, in inputs, baseWF map[string]string, known bool) []policyChange {
	if base == nil {
		base = &config.Config{}
	}
	var out []policyChange
	if from := baseWF["fail-on"]; in.FailOn != from {
		c := policyChange{Setting: "input fail-on", From: from, To: in.FailOn, Loosens: failOnLoosens(base, from, in.FailOn)}
		if c.Loosens {
			o.FailOn = from
		}
		out = append(out, c)
	}
	if from := baseWF["allow-incomplete"] == "true"; in.AllowIncomplete != from {
		c := policyChange{Setting: "input allow-incomplete", From: strconv.FormatBool(from), To: strconv.FormatBool(in.AllowIncomplete), Loosens: in.AllowIncomplete}
		if c.Loosens {
			o.AllowIncomplete = from
		}
		out = append(out, c)
	}
	if from := baseWF["network"]; in.Network != from {
		c := policyChange{Setting: "input network", From: from, To: in.Network, Loosens: networkLoosens(base, from, in.Network)}
		if c.Loosens {
			o.Base.Sandbox.Network = from
		}
		out = append(out, c)
	}
	if known {
		// Another file is another policy: the base's is read from the
		// pull request's path, where it may not be.
		if from, err := workspaceRel(".", cmp.Or(baseWF["config"], config.DefaultFile)); err == nil && from != in.Config {
			out = append(out, policyChange{Setting: "input config", From: from, To: in.Config, Loosens: true})
		}
	}
	return out
}

// failOnLoosens reports whether the fail-on input to fails any server of
// the base configuration on less than from does (the input overrides the
// configuration's fail_on; "" leaves it).
func failOnLoosens(base *config.Config, from, to string) bool {
	for _, s := range append([]*config.Server{{}}, base.Servers...) {
		if strictness(cmp.Or(to, s.FailOn, base.FailOn)) > strictness(cmp.Or(from, s.FailOn, base.FailOn)) {
			return true
		}
	}
	return false
}

// networkLoosens reports whether the network input to opens the network
// of any server of the base configuration that from keeps closed.
func networkLoosens(base *config.Config, from, to string) bool {
	for _, s := range append([]*config.Server{{}}, base.Servers...) {
		if cmp.Or(to, s.Network, base.Network) == "open" && cmp.Or(from, s.Network, base.Network) != "open" {
			return true
		}
	}
	return false
}

// unionNames is a followed by the names of b it lacks: on a pull request
// the servers input may add servers to the check, never leave out one the
// pull request changes.
func unionNames(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, n := range b {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
