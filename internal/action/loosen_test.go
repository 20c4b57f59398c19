package action

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/config"
)

func parseCfg(t *testing.T, text string) *config.Config {
	t.Helper()
	c, err := config.Parse("mcp-audit.yml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPolicyChanges: what a pull request changes in the policy, and which
// of those changes loosen it. Each case is the server entry's settings in
// the base and in the pull request, or the file-wide ones (top).
func TestPolicyChanges(t *testing.T) {
	const srv = "    target: npm:s\n    version: 1.0.0\n"
	for _, tc := range []struct {
		name             string
		baseTop, headTop string
		baseSrv, headSrv string
		newServer        bool
		want             string // setting:from>to:loosens, joined by " "
	}{
		{name: "unchanged", baseSrv: "    allow: {hosts: [a.example]}\n", headSrv: "    allow: {hosts: [a.example]}\n", want: ""},
		{name: "new allow host", headSrv: "    allow: {hosts: [evil.example]}\n", want: "allow.hosts:>evil.example:true"},
		{name: "removed allow host", baseSrv: "    allow: {hosts: [a.example]}\n", want: "allow.hosts:a.example>:false"},
		{name: "new allow path and process", headSrv: "    allow: {paths: [\"~/.ssh/**\"], processes: [sh]}\n",
			want: "allow.paths:>~/.ssh/**:true allow.processes:>sh:true"},
		{name: "lower server fail_on", headSrv: "    fail_on: critical\n", want: "fail_on:>critical:true"},
		{name: "fail_on none", baseSrv: "    fail_on: medium\n", headSrv: "    fail_on: none\n", want: "fail_on:medium>none:true"},
		{name: "stricter fail_on", headSrv: "    fail_on: low\n", want: "fail_on:>low:false"},
		{name: "file-wide fail_on lowered", baseTop: "fail_on: medium\n", headTop: "fail_on: high\n", want: "fail_on:medium>high:true"},
		{name: "file-wide network open", headTop: "network: open\n", want: "network:>open:true"},
		{name: "server network open", headSrv: "    network: open\n", want: "network:>open:true"},
		{name: "network none is stricter", headSrv: "    network: none\n", want: "network:>none:false"},
		{name: "env added", headSrv: "    env: {API_KEY: real}\n", want: "env.API_KEY:>API_KEY=real:true"},
		{name: "env changed", baseSrv: "    env: {URL: a}\n", headSrv: "    env: {URL: b}\n", want: "env.URL:URL=a>URL=b:true"},
		{name: "canary removed", baseSrv: "    canary_env: [TOKEN]\n", want: "canary_env:TOKEN>:true"},
		{name: "canary added", headSrv: "    canary_env: [TOKEN]\n", want: "canary_env:>TOKEN:false"},
		{name: "new server with allow", newServer: true, headSrv: "    allow: {hosts: [x.example]}\n", want: "allow.hosts:>x.example:true"},
		{name: "new server below the base's fail_on", newServer: true, baseTop: "fail_on: low\n", headTop: "fail_on: low\n",
			headSrv: "    fail_on: high\n", want: "fail_on:low>high:true"},
		{name: "new server env is its own", newServer: true, headSrv: "    env: {URL: x}\n", want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			baseText := tc.baseTop + "servers:\n  other:\n    target: npm:o\n"
			if !tc.newServer {
				baseText += "  s:\n" + srv + tc.baseSrv
			}
			head := parseCfg(t, tc.headTop+"servers:\n  other:\n    target: npm:o\n  s:\n"+srv+tc.headSrv)
			var got []string
			for _, c := range policyChanges(parseCfg(t, baseText), head) {
				got = append(got, fmt.Sprintf("%s:%s>%s:%v", c.Setting, c.From, c.To, c.Loosens))
			}
			if g := strings.Join(got, " "); g != tc.want {
				t.Errorf("changes %q, want %q", g, tc.want)
			}
		})
	}
}

// TestPolicyChangesWithoutBase: a configuration new in the pull request is
// compared with the defaults.
func TestPolicyChangesWithoutBase(t *testing.T) {
	head := parseCfg(t, "fail_on: none\nservers:\n  s:\n    target: npm:s\n    allow: {hosts: [x.example]}\n")
	cs := policyChanges(nil, head)
	if len(cs) != 2 || !cs[0].Loosens || !cs[1].Loosens {
		t.Errorf("changes %+v", cs)
	}
}
