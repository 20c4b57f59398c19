package action

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// inputs are the inputs of action.yml.
type inputs struct {
	Config  string
	FailOn  string
	Network string
	// AllowIncomplete is the allow-incomplete input.
	AllowIncomplete bool
	Comment         bool
	Token           string
	UpdateBaselines bool
	SARIF           string
	Servers         []string
	// ReportArtifact names the artifact a later step uploads the HTML
	// report in; the comment then links the run that holds it.
	ReportArtifact string
}

func readInputs(a *githubactions.Action) (inputs, error) {
	in := inputs{
		Config: a.GetInput("config"), FailOn: a.GetInput("fail-on"), Network: a.GetInput("network"),
		Token: a.GetInput("github-token"), SARIF: a.GetInput("sarif"),
		ReportArtifact: textsafe.Line(a.GetInput("report-artifact"), 100),
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
	if in.AllowIncomplete, err = boolInput(a, "allow-incomplete", false); err != nil {
		return in, err
	}
	// A list input may be written on one line or as a YAML block.
	in.Servers = append(in.Servers, strings.FieldsFunc(a.GetInput("servers"), func(r rune) bool { return r == ',' || r == '\n' || r == ' ' })...)
	return in, nil
}

func boolInput(a *githubactions.Action, name string, def bool) (bool, error) {
	v := strings.TrimSpace(a.GetInput(name))
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%w: input %s: %q is not true or false", verdict.ErrUsage, name, v)
	}
	return b, nil
}
