package coverage

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// ErrorClassBackendAnswer is a call that failed on the shape of what the
// service it fronts answered (the sinkhole's answer): the server reached
// the backend, and its own validation of the answer failed.
const ErrorClassBackendAnswer = "backend-answer"

// classRule is one way a failed call's message says why it failed. The
// messages are the server's (hostile, bounded to 200 characters by the
// audit); they are only matched, never shown from here.
type classRule struct {
	class string
	re    *regexp.Regexp
}

// classRules are tried in order; the first that matches names the class.
// Taken from what the study's 40 servers answered (internal/policy/
// testdata/study): a missing program before a missing backend ("spawn
// kubectl ENOENT" is no network error), a backend before bad arguments
// ("Failed to connect to database: … must be provided" is the database),
// a result that failed its own schema before bad arguments.
var classRules = []classRule{
	{m.ErrorClassMissingProgram, regexp.MustCompile(`(?i)\b(spawn(sync)?\s+\S+\s+enoent|command not found|could not find (chrome|chromium|firefox|a browser|browser|executable)|executable doesn't exist|no such file or directory.*\b(exec|spawn)|not a git repository|browsertype\.launch|is not installed|not found in path|please install)`)},
	{m.ErrorClassBackendUnreachable, regexp.MustCompile(`(?i)(econnrefused|econnreset|enotfound|etimedout|eai_again|getaddrinfo|fetch failed|socket hang up|connection (lost|refused|terminated|closed|reset)|failed to connect|could not connect|unable to connect|network error|unauthori[sz]ed|forbidden|\b40[13]\b|invalid (api )?(key|token|credentials)|bad credentials|authentication (failed|required)|access denied|certificate|\b50[234]\b|service unavailable|bad gateway|skiptlsverify)`)},
	// The server's own result failed its schema: what it made of the
	// backend's answer (a chart URL the answer did not have), not the
	// arguments, whatever error code it chose (-32602).
	{ErrorClassBackendAnswer, regexp.MustCompile(`(?i)(invalid tools/call result|(structured )?output (schema )?validation|output does not match|invalid structured content)`)},
	{m.ErrorClassInvalidArguments, regexp.MustCompile(`(?i)(-32602|invalid (argument|param|input|enum|value|url|type)|validation (failed|error)|must be (provided|one of|a |an |inside)|is required|are required|required (parameter|argument|field)|missing (required|parameter|argument)|provide (exactly |either )?(one|a|an|either)|either \S+ or \S+|at least one of|expected \S+, received|not a valid|could not extract|unrecognized key|too_(small|big)|invalid_(type|union|enum_value|string))`)},
}

// Class names the class of a call's failure.
func Class(c m.Call, schema json.RawMessage) string {
	switch c.Outcome {
	case m.CallTimeout:
		return m.ErrorClassTimeout
	case m.CallServerDied:
		return m.ErrorClassServerDied
	case m.CallTooLarge:
		return m.ErrorClassTooLarge
	case m.CallSkipped:
		if strings.Contains(c.Detail, "budget") {
			return m.ErrorClassSkippedBudget
		}
		return m.ErrorClassSkippedRestart
	}
	detail := c.Detail
	if len(detail) > 400 {
		detail = detail[:400]
	}
	for _, r := range classRules {
		if r.re.MatchString(detail) {
			if r.class == m.ErrorClassInvalidArguments && answerShape(detail, schema) {
				return ErrorClassBackendAnswer
			}
			return r.class
		}
	}
	return m.ErrorClassServerError
}

// reZodPath finds the paths of a zod-style issue list ("path":["total_count"]).
var reZodPath = regexp.MustCompile(`"path"\s*:\s*\[\s*"([^"\\]{1,100})"`)

// answerShape reports a validation message about fields the tool's input
// schema does not have: the server validated what its backend answered,
// not what the caller sent ("expected number, received undefined" at
// total_count, a field of a search API's answer).
func answerShape(detail string, schema json.RawMessage) bool {
	paths := reZodPath.FindAllStringSubmatch(detail, 8)
	if len(paths) == 0 {
		return false
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s)
	return !slices.ContainsFunc(paths, func(p []string) bool { _, ok := s.Properties[p[1]]; return ok })
}
