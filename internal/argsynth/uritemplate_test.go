package argsynth

import "testing"

func TestExpandURI(t *testing.T) {
	for tmpl, want := range map[string]string{
		"notes:///{name}":              "notes:///Maria%20Lindqvist",
		"file://{+path}":               "file:///home/dev/workspace/README.md",
		"docs://{id}{#section}":        "docs://48213#Quarterly%20report",
		"repo://{owner}/{repo}/{.ext}": "repo://mlindqvist/fleet-dashboard/.Quarterly%20report",
		"api://x{/user,id}":            "api://x/mlindqvist/48213",
		"api://x{;id}":                 "api://x;id=48213",
		"search://all{?query,limit}":   "search://all?query=shipping%20delays%20october&limit=Quarterly%20report",
		"search://all?a=1{&email}":     "search://all?a=1&email=maria.lindqvist%40brightwater-logistics.com",
		"mods://{var:3}/{list*}":       "mods://Quarterly%20report/Quarterly%20report",
		"plain://no/vars":              "plain://no/vars",
		"broken://{unclosed":           "broken://{unclosed",
		"empty://{}":                   "empty://",
		"host://{host}/{+url}":         "host://files.brightwater-logistics.com/https://www.brightwater-logistics.com/reports/q3-summary",
	} {
		if got := ExpandURI(tmpl); got != want {
			t.Errorf("ExpandURI(%q) = %q, want %q", tmpl, got, want)
		}
	}
}
