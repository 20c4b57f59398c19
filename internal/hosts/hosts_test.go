package hosts

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExtract(t *testing.T) {
	for in, want := range map[string][]string{
		"https://api.service.example/v1?x=1":                   {"api.service.example"},
		"mongodb://user:pw@db.cluster.example:27017/db":        {"db.cluster.example"},
		"postgres://u@10.1.2.3/db":                             {"10.1.2.3"},
		"--host mail.example.com --port 25":                    {"mail.example.com"},
		"see README.md and index.js":                           nil,
		`{"url":"https://A.Example/x","to":"me@Mail.Example"}`: {"a.example", "mail.example"},
		"plain text without hosts":                             nil,
	} {
		if diff := cmp.Diff(want, Extract(in)); diff != "" {
			t.Errorf("Extract(%q) (-want +got):\n%s", in, diff)
		}
	}
}

func TestRegistrable(t *testing.T) {
	for h, want := range map[string]string{
		"api.mail.example.com": "example.com", "example.co.uk": "example.co.uk", "x.y.example.co.uk": "example.co.uk",
		"192.0.2.1": "192.0.2.1", "API.Notion.SO.": "notion.so",
	} {
		if got := Registrable(h); got != want {
			t.Errorf("Registrable(%q) = %q, want %q", h, got, want)
		}
	}
	if !SameService("api.notion.com", []string{"notion.com"}) || SameService("notion.com.evil.example", []string{"notion.com"}) {
		t.Error("SameService")
	}
	if !IsDownloadHost("objects.githubusercontent.com") || !IsDownloadHost("my-bucket.s3.amazonaws.com") || IsDownloadHost("telemetry.example") {
		t.Error("IsDownloadHost")
	}
}

func TestValid(t *testing.T) {
	for h, ok := range map[string]bool{
		"api.example.com": true, "API.Example.COM": true, "a-b.c.example": true, "8.8.4.4": true,
		"*.example.com": false, "example": false, "localhost": false, "db.internal": false, "printer.local": false,
		"127.0.0.1": false, "10.1.2.3": false, "169.254.169.254": false, "192.168.0.1": false, "198.18.0.5": false,
		"::1": false, "fe80::1": false, "fd00::1": false, "100.64.0.1": false, "0.0.0.0": false,
		"a..b": false, "-x.example": false, "x_y.example": false, "x.example\n": false, "\x1b[2J.example": false,
		"1.2.3": false, "": false,
	} {
		if got := Valid(h) == nil; got != ok {
			t.Errorf("Valid(%q) = %v, want %v", h, got, ok)
		}
	}
}
