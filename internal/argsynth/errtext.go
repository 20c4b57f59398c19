package argsynth

import (
	"regexp"
	"slices"
	"strings"
)

// The sentences servers write about their arguments, each with a sample.
var (
	// "Provide exactly one of url or alexandria", "At least one of 'term'
	// or 'guid' must be provided", "Either resourceType, manifest, or
	// filename must be provided", "Provide either 'url' (…) or 'scrapeId'
	// (…), not both."
	reGroup = regexp.MustCompile(`(?i)\b(exactly one of|at least one of|only one of|one of|either)\s+([^.;\n…]{1,200})`)
	// "jobId: jobId is required for job feedback", "'url' is required".
	reRequired = regexp.MustCompile("(?i)[`'\"]?\\b([A-Za-z_][\\w.]*)[`'\"]?\\s+(?:is|are)\\s+(?:required|missing)")
	// "Missing required parameter: url", "must have required property 'url'".
	reMissing = regexp.MustCompile("(?i)(?:missing|required)\\s+(?:required\\s+)?(?:parameter|argument|field|property|key|input)s?\\s*:?\\s*[`'\"]?([A-Za-z_][\\w.]*)")
	// "Invalid resourceType: mcp-audit probe. Must be Text or Blob."
	reInvalid = regexp.MustCompile("(?i)\\binvalid\\s+(?:value\\s+(?:for\\s+)?)?[`'\"]?([A-Za-z_][\\w.]*)[`'\"]?\\s*(?::|=)\\s*[`'\"]?([^.'\"`\\n]{0,80})")
	// "Must be Text or Blob.", "Expected 'a' | 'b', received 'c'", "must
	// be one of: a, b", "Invalid option: expected one of \"a\"|\"b\"".
	reAllowed = regexp.MustCompile(`(?i)\b(?:must be one of|should be one of|expected one of|must be|should be|expected|allowed values?(?: are| is)?|valid (?:values|options) (?:are|is))\s*:?\s*([^\n]{1,200})`)
	// "received 'c'" after an enum's alternatives.
	reReceived = regexp.MustCompile("(?i)received\\s+[`'\"]([^`'\"]{1,80})[`'\"]")
	// "Could not extract video ID from: https://…", "Invalid URL",
	// "must match format \"uri\"", "video id must be inside a URL".
	reFormat = regexp.MustCompile(`(?i)(?:invalid|not a valid|must be a valid|could not (?:extract|parse)|unable to (?:extract|parse)|must match format)\s+"?(youtube\s+)?(video\s*id|url|uri|link|email|uuid|date-time|datetime|date)\b"?(?:[^:\n]{0,40}?(?:from|:)\s*:?\s*([^\s,]+))?`)
	reInside = regexp.MustCompile(`(?i)\b(video\s*id|id)\s+(?:must|should)\s+be\s+(?:inside|in|part of)\s+(?:a|an|the)?\s*(url|link)`)
	reAt     = regexp.MustCompile("(?i)(?:\\bat\\s+(?:path\\s+)?[`'\"]|\\bpath[:=]\\s*\\[?\\s*[`'\"]?|instancePath[\"']?[:=]\\s*[\"']?)/?([A-Za-z_][\\w.]*)")
	rePrefix = regexp.MustCompile(`(?m)(?:^|[:,]\s)([A-Za-z_][\w.]*):\s+(?:expected|invalid|required|must|should)`)
	// "data/count must be integer", "/mode must be equal to one of the
	// allowed values" (ajv's instance path).
	reAjvPath   = regexp.MustCompile(`(?:^|[\s,:])(?:data)?((?:/[\w-]+)+)\s+must\b`)
	reUnknown   = regexp.MustCompile("(?i)(?:unrecognized key\\(?s?\\)? in object|unexpected (?:keyword )?argument|unknown (?:parameter|argument|property|field)|additionalProperty)\\s*:?\\s*[`'\"]?([A-Za-z_][\\w.]*)")
	reNotValues = regexp.MustCompile(`(?i)^(?:provided|specified|set|given|supplied|present|passed|included|non-empty|empty|at least|at most|less|greater|between|positive|negative|inside|in\b|part of)`)
	reParens    = regexp.MustCompile(`\([^)]{0,80}\)`)
	reTypeMsg   = regexp.MustCompile(`(?i)^(?:an?\s+)?(number|string|integer|boolean|array|object|int|float|bool)\b`)
)

// notNames are words of a group's clause that are not parameter names.
var notNames = []string{"or", "and", "nor", "the", "a", "an", "not", "both", "must", "be", "provided", "specified",
	"parameter", "parameters", "field", "fields", "argument", "arguments", "option", "options", "of", "to", "is"}

// sentences reads the plain-text forms.
func sentences(msg string) []Issue {
	var out []Issue
	param := paramNamed(msg)
	plain := reParens.ReplaceAllString(msg, "")
	for _, loc := range reGroup.FindAllStringSubmatchIndex(plain, 4) {
		if before := strings.ToLower(strings.TrimSpace(plain[:loc[0]])); strings.HasSuffix(before, " be") || strings.HasSuffix(before, " to") {
			continue // "must be one of: a, b" lists values, not parameters
		}
		m := []string{plain[loc[0]:loc[1]], plain[loc[2]:loc[3]], plain[loc[4]:loc[5]]}
		var names []string
		for _, id := range reIdent.FindAllString(m[2], 16) {
			if !slices.Contains(notNames, strings.ToLower(id)) && !slices.Contains(names, id) {
				names = append(names, id)
			}
		}
		if len(names) > 0 && cut(plain[loc[5]:], m[2]) {
			names[len(names)-1] += "*" // "Either 'code' or 'prom…": the name was cut
		}
		low := strings.ToLower(m[0])
		excl := strings.Contains(low, "exactly") || strings.Contains(low, "not both") || strings.Contains(low, "only one")
		if len(names) > 0 {
			out = append(out, Issue{Kind: IssueOneOf, Group: names, Exclusive: excl})
		}
	}
	for _, re := range []*regexp.Regexp{reRequired, reMissing} {
		for _, m := range re.FindAllStringSubmatch(msg, 4) {
			if !slices.Contains(notNames, strings.ToLower(m[1])) {
				out = append(out, Issue{Kind: IssueMissing, Param: m[1]})
			}
		}
	}
	out = append(out, allowed(msg, param)...)
	out = append(out, formats(msg, param)...)
	for _, m := range reUnknown.FindAllStringSubmatch(msg, 4) {
		out = append(out, Issue{Kind: IssueUnknown, Param: m[1]})
	}
	return out
}

// cut reports whether a clause runs into the end of a clipped message
// ("… or 'prom…").
func cut(after, clause string) bool {
	t := strings.TrimRight(clause, " '\"`")
	return strings.HasPrefix(after, "…") && reIdent.MatchString(t[max(0, len(t)-1):])
}

// paramNamed is the parameter a message names by position: "at
// 'count'", "path: count", "data/count must …", "count: Expected …".
func paramNamed(msg string) string {
	if m := reAt.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	if m := reAjvPath.FindStringSubmatch(msg); m != nil {
		return strings.ReplaceAll(strings.Trim(m[1], "/"), "/", ".")
	}
	if m := rePrefix.FindStringSubmatch(msg); m != nil && m[1] != "root" {
		return m[1]
	}
	return ""
}

// allowed reads enum and type complaints.
func allowed(msg, param string) []Issue {
	value := ""
	if m := reInvalid.FindStringSubmatch(msg); m != nil && !strings.EqualFold(m[1], "input") && !strings.EqualFold(m[1], "enum") {
		param, value = m[1], strings.TrimSpace(m[2])
	}
	if m := reReceived.FindStringSubmatch(msg); m != nil && value == "" {
		value = m[1]
	}
	m := reAllowed.FindStringSubmatch(msg)
	if m == nil {
		return nil
	}
	tail := m[1]
	if reNotValues.MatchString(tail) {
		return nil // "must be provided" says a parameter is needed, not what it holds
	}
	if t := reTypeMsg.FindStringSubmatch(tail); t != nil {
		return []Issue{{Kind: IssueType, Param: param, Expected: normType(t[1])}}
	}
	if strings.HasPrefix(strings.ToLower(tail), "equal to one of the allowed values") {
		return []Issue{{Kind: IssueEnum, Param: param, Value: value}}
	}
	if i := strings.Index(strings.ToLower(tail), ", received"); i >= 0 {
		tail = tail[:i]
	}
	if alts := alternatives(tail); len(alts) > 0 {
		return []Issue{{Kind: IssueEnum, Param: param, Allowed: alts, Value: value}}
	}
	return nil
}

func normType(t string) string {
	switch strings.ToLower(t) {
	case "int":
		return "integer"
	case "float":
		return "number"
	case "bool":
		return "boolean"
	}
	return strings.ToLower(t)
}

// formats reads complaints about a value's form: a URL, a video URL, an
// email, a uuid, a date.
func formats(msg, param string) []Issue {
	var out []Issue
	for _, m := range reFormat.FindAllStringSubmatch(msg, 4) {
		out = append(out, Issue{Kind: IssueFormat, Param: param, Expected: normFormat(m[1] + m[2]), Value: strings.TrimRight(m[3], ".")})
	}
	if m := reInside.FindStringSubmatch(msg); m != nil {
		out = append(out, Issue{Kind: IssueFormat, Param: param, Expected: normFormat(m[1])})
	}
	return out
}

// The formats an issue can ask for.
const (
	formatURL      = "url"
	formatVideoURL = "video-url"
)

func normFormat(f string) string {
	f = strings.ToLower(strings.Join(strings.Fields(f), " "))
	switch {
	case strings.Contains(f, "video") || strings.Contains(f, "youtube"):
		return formatVideoURL
	case f == "uri" || f == "link" || f == "url":
		return formatURL
	case f == "datetime":
		return "date-time"
	}
	return f
}
