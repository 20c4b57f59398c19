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
		"BRAVE_API_KEY":         `^BSA[A-Za-z0-9]{28}$`,
		"STRIPE_SECRET_KEY":     `^sk_live_51[A-Za-z0-9]{97}$`,
		"NPM_TOKEN":             `^npm_[A-Za-z0-9]{36}$`,
		"SLACK_BOT_TOKEN":       `^xoxb-[0-9]{13}-[0-9]{13}-[A-Za-z0-9]{24}$`,
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

// TestShapesServersAccept: a server that validates its key or connection
// string gets one in its provider's shape, and no value says "test" or
// "mcp-audit" outside the host of a connection string.
func TestShapesServersAccept(t *testing.T) {
	s := Generate([]string{"MONGODB_URI", "REDIS_URL", "DATABASE_URL", "MYSQL_URL", "SUPABASE_SERVICE_ROLE_KEY",
		"GOOGLE_MAPS_API_KEY", "HF_TOKEN", "PERPLEXITY_API_KEY", "NOTION_TOKEN", "SOME_OTHER_SECRET", "POSTMARK_SERVER_TOKEN"})
	for name, re := range map[string]string{
		"MONGODB_URI":               `^mongodb://app:[A-Za-z0-9]{24}@[a-z.-]+:27017/app`,
		"REDIS_URL":                 `^redis://default:[A-Za-z0-9]{24}@`,
		"DATABASE_URL":              `^postgres://app:[A-Za-z0-9]{24}@[a-z.-]+:5432/app$`,
		"MYSQL_URL":                 `^mysql://`,
		"SUPABASE_SERVICE_ROLE_KEY": `^eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$`,
		"GOOGLE_MAPS_API_KEY":       `^AIza[A-Za-z0-9_-]{35}$`,
		"HF_TOKEN":                  `^hf_[A-Za-z0-9]{34}$`,
		"PERPLEXITY_API_KEY":        `^pplx-`,
		"NOTION_TOKEN":              `^ntn_`,
		"SOME_OTHER_SECRET":         `^[A-Za-z0-9]{40}$`,
		"POSTMARK_SERVER_TOKEN":     `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$`,
	} {
		v := s.Env[name]
		if !regexp.MustCompile(re).MatchString(v) {
			t.Errorf("%s=%q does not match %s", name, v, re)
		}
		if strings.Contains(strings.ToLower(v), "audit") {
			t.Errorf("%s=%q names the tool", name, v)
		}
	}
}

// TestTokenChecksums: GitHub and npm tokens end in the base62 CRC32 of
// their 30 random characters, as the providers issue them (vectors from
// an independent implementation: Python's zlib.crc32 and the same digits).
func TestTokenChecksums(t *testing.T) {
	for body, want := range map[string]string{
		"abcdefghijklmnopqrstuvwxyz0123": "2LolCm",
		"000000000000000000000000000000": "2C8GjS",
	} {
		if got := crcTail(body); got != want {
			t.Errorf("crcTail(%q) = %q, want %q", body, got, want)
		}
	}
	s := Generate(nil)
	tokens := []string{s.Env["GITHUB_TOKEN"], s.Env["GH_TOKEN"], s.Env["NPM_TOKEN"]}
	for _, c := range s.All() {
		if c.Name == "file:~/.npmrc" || c.Name == "file:~/.config/gh/hosts.yml" {
			tokens = append(tokens, c.Values...)
		}
	}
	if len(tokens) != 5 {
		t.Fatalf("want 5 checksummed tokens, got %d", len(tokens))
	}
	for _, tok := range tokens {
		if len(tok) != 40 || crcTail(tok[4:34]) != tok[34:] {
			t.Errorf("%q: bad checksum", tok)
		}
	}
}

// TestNothingNamesTheAudit: no canary value and no decoy file says what
// reads it (a server that greps its environment or ~/.gitconfig for the
// auditor's name would stay dormant).
func TestNothingNamesTheAudit(t *testing.T) {
	s := Generate([]string{"DATABASE_URL", "MONGODB_URI", "SENTRY_DSN", "SLACK_WEBHOOK_URL"})
	for k, v := range s.Env {
		if strings.Contains(strings.ToLower(v), "audit") {
			t.Errorf("%s names the audit", k)
		}
	}
	for _, f := range s.Files {
		if strings.Contains(strings.ToLower(string(f.Content)), "audit") {
			t.Errorf("%s names the audit", f.Path)
		}
	}
}
