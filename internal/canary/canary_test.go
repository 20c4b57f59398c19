package canary

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGenerateUniqueAndRealistic(t *testing.T) {
	a, b := Generate([]string{"BRAVE_API_KEY"}), Generate([]string{"BRAVE_API_KEY"})
	if a.Env["GITHUB_TOKEN"] == b.Env["GITHUB_TOKEN"] {
		t.Fatal("canaries must differ between runs")
	}
	for name, re := range map[string]string{
		"GITHUB_TOKEN":          `^ghp_[A-Za-z0-9]{36}$`,
		"AWS_ACCESS_KEY_ID":     `^AKIA[A-Z2-7]{16}$`,
		"AWS_SECRET_ACCESS_KEY": `^[A-Za-z0-9]{40}$`,
		"OPENAI_API_KEY":        `^sk-proj-`,
		"BRAVE_API_KEY":         `^mcpaudit_[A-Za-z0-9]{32}$`,
	} {
		if !regexp.MustCompile(re).MatchString(a.Env[name]) {
			t.Errorf("%s=%q does not match %s", name, a.Env[name], re)
		}
	}
	if a.FileCanary("~/.ssh/id_rsa") == "" || a.FileCanary("~/.bashrc") != "" {
		t.Error("FileCanary: id_rsa is a canary, .bashrc is not")
	}
	for _, c := range a.All() {
		if len(c.Values) == 0 {
			t.Errorf("%s has no values", c.Name)
		}
		for _, v := range c.Values {
			if len(v) < 16 {
				t.Errorf("%s value too short to be distinctive", c.Name)
			}
		}
	}
}

func TestFinderEncodings(t *testing.T) {
	s := Generate(nil)
	f := NewFinder(s.All())
	tok := s.Env["GITHUB_TOKEN"]
	b32 := base32.StdEncoding.EncodeToString
	for _, tc := range []struct {
		name, data, enc string
	}{
		{"raw in JSON", `{"token":"` + tok + `"}`, "raw"},
		{"hex", "x=" + hex.EncodeToString([]byte(tok)), "hex"},
		{"HEX upper", strings.ToUpper(hex.EncodeToString([]byte(tok))), "hex"},
		{"base64 aligned", base64.StdEncoding.EncodeToString([]byte(tok)), "base64"},
		{"base64 offset 1", base64.StdEncoding.EncodeToString([]byte("a" + tok + "zz")), "base64"},
		{"base64 offset 2", base64.StdEncoding.EncodeToString([]byte("ab" + tok)), "base64"},
		{"base64url", base64.URLEncoding.EncodeToString([]byte("{\"k\":\"" + tok + "\"}")), "base64url"},
		{"base32 offset 3", b32([]byte("abc" + tok)), "base32"},
		{"base32 in DNS label, lower", strings.ToLower(b32([]byte(tok))) + ".x.example", "base32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits := f.FindString(tc.data)
			found := false
			for _, h := range hits {
				if h.Canary == "env:GITHUB_TOKEN" && h.Encoding == tc.enc {
					found = true
				}
			}
			if !found {
				t.Errorf("want env:GITHUB_TOKEN/%s in %v", tc.enc, hits)
			}
		})
	}
	// URL encoding only matters for values with reserved characters.
	s.all = append(s.all, Canary{Name: "env:DB_URL", Values: []string{"postgres://u:p@h.test/x?y=1"}})
	f = NewFinder(s.all)
	if hits := f.FindString("q=" + url.QueryEscape("postgres://u:p@h.test/x?y=1")); !cmp.Equal(hits, []Hit{{"env:DB_URL", "url"}}) {
		t.Errorf("url: %v", hits)
	}
	if hits := f.FindString("nothing to see here, ghp_ but not the token"); len(hits) != 0 {
		t.Errorf("false positive: %v", hits)
	}
}

func TestRedact(t *testing.T) {
	s := Generate(nil)
	text := "error: bad token " + s.Env["OPENAI_API_KEY"] + " rejected"
	got := s.Redact(text)
	if strings.Contains(got, s.Env["OPENAI_API_KEY"]) || !strings.Contains(got, "<canary env:OPENAI_API_KEY>") {
		t.Fatalf("got %q", got)
	}
}

// TestFinderSplitKey: the decoy key is found as read (the PEM's own line
// breaks split its canary), re-wrapped at 64 columns, JSON-escaped and
// escaped twice; whitespace alone is not a canary.
func TestFinderSplitKey(t *testing.T) {
	s := Generate(nil)
	f := NewFinder(s.All())
	var pem string
	for _, file := range s.Files {
		if file.Path == "~/.ssh/id_rsa" {
			pem = string(file.Content)
		}
	}
	lines := strings.Split(strings.TrimSpace(pem), "\n")
	body := strings.Join(lines[1:len(lines)-1], "")
	var wrapped strings.Builder
	for len(body) > 64 {
		wrapped.WriteString(body[:64] + "\r\n")
		body = body[64:]
	}
	wrapped.WriteString(body)
	escaped := strings.ReplaceAll(pem, "\n", `\n`)
	for name, data := range map[string]string{
		"as read": pem, "wrapped": wrapped.String(), "json": `{"key":"` + escaped + `"}`,
		"json twice": strings.ReplaceAll(escaped, `\n`, `\\n`), "spaced": strings.ReplaceAll(pem, "\n", " \t "),
	} {
		found := false
		for _, h := range f.FindString(data) {
			found = found || h.Canary == "file:~/.ssh/id_rsa" && h.Encoding == "base64"
		}
		if !found {
			t.Errorf("%s: key not found", name)
		}
	}
	if hits := f.FindString(" \n\\n\t\\\\r x"); len(hits) != 0 {
		t.Errorf("false positive: %v", hits)
	}
}
