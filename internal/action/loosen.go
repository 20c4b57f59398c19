package action

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// KindPolicyLoosened marks a pull request that loosens the policy it is
// checked under: a reviewer must accept it (by merging; docs/policy.md).
const KindPolicyLoosened = "policy-loosened"

// policyChange is one setting a pull request changes in the policy.
type policyChange struct {
	Server  string // "" for the file-wide settings
	Setting string // fail_on, network, allow.hosts, env, canary_env, baseline, …
	From    string // the base's value ("" when unset)
	To      string // the pull request's value ("" when removed)
	Loosens bool
	Line    int // where it is in the pull request's configuration (0: unknown)
}

// policyChanges compares the policy settings of the base configuration
// (nil when the base has none) with the pull request's. A server new in
// the pull request is compared with the base's file-wide defaults: its
// allow entries, a lower fail_on or network: open loosen the policy too.
// Servers are matched by target, not by name (servermatch.go).
func policyChanges(base, head *config.Config) []policyChange {
	if base == nil {
		base = &config.Config{}
	}
	var out []policyChange
	if base.FailOn != head.FailOn {
		out = append(out, failOnChange("", base.FailOn, head.FailOn, 0))
	}
	if base.Network != head.Network {
		out = append(out, networkChange("", base.Network, head.Network, 0))
	}
	if base.AllowIncomplete != head.AllowIncomplete {
		out = append(out, allowIncompleteChange("", base.AllowIncomplete, head.AllowIncomplete, 0))
	}
	for _, s := range head.Servers {
		out = append(out, serverChanges(base, head, s)...)
	}
	return out
}

// serverChanges compares one of the pull request's servers with the base
// server that runs the same target (servermatch.go). A server new in the
// pull request is compared with the base's file-wide defaults; when it
// took over the name of a base server that ran another target, its env
// and canary_env are compared with that server's too: a name the base
// protected with canaries keeps them.
func serverChanges(base, head *config.Config, s *config.Server) []policyChange {
	var out []policyChange
	b := baseEntry(base, s)
	isNew := b == nil
	if isNew {
		b = &config.Server{}
	} else if b.Name != s.Name {
		out = append(out, policyChange{Server: s.Name, Setting: "name", From: b.Name, To: s.Name, Line: s.Line})
	}
	if old := sameNameOtherTarget(base, s); old != nil {
		out = append(out, policyChange{Server: s.Name, Setting: "target", From: old.Target, To: s.Target, Line: s.Line})
	}
	if b.FailOn != s.FailOn {
		out = append(out, failOnChange(s.Name, cmp.Or(b.FailOn, base.FailOn), cmp.Or(s.FailOn, head.FailOn), s.Line))
	}
	if b.Network != s.Network {
		out = append(out, networkChange(s.Name, cmp.Or(b.Network, base.Network), cmp.Or(s.Network, head.Network), s.Line))
	}
	if b.AllowIncomplete != s.AllowIncomplete {
		out = append(out, allowIncompleteChange(s.Name, b.AllowIncomplete || base.AllowIncomplete, s.AllowIncomplete || head.AllowIncomplete, s.Line))
	}
	out = append(out, listChanges(s.Name, "allow.hosts", b.Allow.Hosts, s.Allow.Hosts, true, s.Line)...)
	out = append(out, listChanges(s.Name, "allow.paths", b.Allow.Paths, s.Allow.Paths, true, s.Line)...)
	out = append(out, listChanges(s.Name, "allow.processes", b.Allow.Processes, s.Allow.Processes, true, s.Line)...)
	envFrom := b
	if isNew {
		envFrom = sameNameOtherTarget(base, s)
	}
	if envFrom != nil {
		// A removed canary name is a credential no longer planted; env
		// can set a variable the audit would fill with a canary, or
		// change what the server does: neither can be told apart here.
		out = append(out, listChanges(s.Name, "canary_env", envFrom.CanaryEnv, s.CanaryEnv, false, s.Line)...)
		out = append(out, envChanges(s.Name, envFrom.Env, s.Env, s.Line)...)
	}
	return out
}

// strictness orders fail_on values: a higher one fails on less.
func strictness(s string) policy.Severity {
	if s == "" {
		return policy.DefaultFailOn
	}
	v, err := policy.ParseSeverity(s)
	if err != nil {
		return policy.Critical + 1
	}
	return v
}

func failOnChange(server, from, to string, line int) policyChange {
	return policyChange{Server: server, Setting: "fail_on", From: from, To: to, Line: line,
		Loosens: strictness(to) > strictness(from)}
}

func networkChange(server, from, to string, line int) policyChange {
	return policyChange{Server: server, Setting: "network", From: from, To: to, Line: line,
		Loosens: to == "open" && from != "open"}
}

// allowIncompleteChange: turning allow_incomplete on lets a server that
// could not be audited pass.
func allowIncompleteChange(server string, from, to bool, line int) policyChange {
	return policyChange{Server: server, Setting: "allow_incomplete", From: strconv.FormatBool(from), To: strconv.FormatBool(to), Line: line,
		Loosens: to && !from}
}

// listChanges lists entries added to and removed from a list setting.
// addedLoosens says which way loosens: an added allow entry loosens, a
// removed canary name does.
func listChanges(server, setting string, base, head []string, addedLoosens bool, line int) []policyChange {
	var out []policyChange
	for _, h := range head {
		if !slices.Contains(base, h) {
			out = append(out, policyChange{Server: server, Setting: setting, To: h, Loosens: addedLoosens, Line: line})
		}
	}
	for _, b := range base {
		if !slices.Contains(head, b) {
			out = append(out, policyChange{Server: server, Setting: setting, From: b, Loosens: !addedLoosens, Line: line})
		}
	}
	return out
}

// envChanges lists the variables a pull request adds, changes or removes
// in a server's env; every one loosens.
func envChanges(server string, base, head map[string]string, line int) []policyChange {
	keys := map[string]bool{}
	for k := range base {
		keys[k] = true
	}
	for k := range head {
		keys[k] = true
	}
	var names []string
	for k := range keys {
		bv, inBase := base[k]
		hv, inHead := head[k]
		if inBase != inHead || bv != hv {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	var out []policyChange
	for _, k := range names {
		c := policyChange{Server: server, Setting: "env." + k, Loosens: true, Line: line}
		if v, ok := base[k]; ok {
			c.From = k + "=" + v
		}
		if v, ok := head[k]; ok {
			c.To = k + "=" + v
		}
		out = append(out, c)
	}
	return out
}

// finding is the finding of a loosening change.
func (c policyChange) finding() policy.Finding {
	where := "the configuration's"
	if strings.HasPrefix(c.Setting, "input ") {
		where = "the workflow's"
	}
	if c.Server != "" {
		where = "server " + c.Server + "'s"
	}
	var what string
	switch {
	case c.Setting == "baseline":
		what = fmt.Sprintf("adds or rewrites the baseline %s, which records behavior the base commit's baselines do not have (%s)", c.To, c.From)
	case c.From == "":
		what = fmt.Sprintf("adds %q to %s %s", c.To, where, c.Setting)
	case c.To == "":
		what = fmt.Sprintf("removes %q from %s %s", c.From, where, c.Setting)
	default:
		what = fmt.Sprintf("changes %s %s from %q to %q", where, c.Setting, c.From, c.To)
	}
	return policy.Finding{Severity: policy.High, Kind: KindPolicyLoosened, Subject: strings.TrimSpace(c.Server + " " + c.Setting),
		Summary: "this pull request loosens the policy it is checked under: it " + what + "; a reviewer must accept it"}
}
