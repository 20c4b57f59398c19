// Package canary generates per-run fake credentials and decoy files, and
// finds them again in data that leaves the server.
//
// Values look like the real thing (a GitHub token starts with ghp_, an AWS
// key id with AKIA…) so that credential-stealing code that filters on format
// takes them, but every value carries fresh randomness from crypto/rand, so a
// hit can only come from this run. Values are secrets for the purpose of
// output hygiene: manifests and reports name a canary, never print it.
package canary

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
)

// PrivateDomain is the private network the canaries' connection strings
// and decoy files name (db.corp.internal, …): a real user of those
// credentials has a resolver that answers it, so the sinkhole does too.
const PrivateDomain = "corp.internal"

// Canary is one fake credential.
type Canary struct {
	// Name identifies the canary in manifests: "env:GITHUB_TOKEN" or
	// "file:~/.aws/credentials".
	Name string
	// Values are the secret strings whose appearance anywhere proves use.
	Values []string
}

// File is a decoy file seeded into the sandbox.
type File struct {
	// Path is relative to HOME ("~/.aws/credentials") or to the workspace
	// ("<workspace>/.env").
	Path    string
	Content []byte
	Mode    int64
	// Canary is true when reading the file is itself a finding (all decoys
	// except ordinary desktop files such as ~/.bashrc).
	Canary bool
}

// Set is the complete set of canaries for one run.
type Set struct {
	Env   map[string]string // variable -> value
	Files []File
	all   []Canary
}

// DefaultEnv are the provider credential variables an audit chooses from
// (Choice) besides the ones the server declares.
var DefaultEnv = []string{
	"ANTHROPIC_API_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN",
	"GH_TOKEN", "NPM_TOKEN", "OPENAI_API_KEY", "SLACK_BOT_TOKEN", "STRIPE_SECRET_KEY",
}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
const upperNum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

func randFrom(alphabet string, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// valueFor returns a fake value in the shape its provider issues, so a
// server that validates its key or connection string starts instead of
// exiting, and nothing about the value says "test".
func valueFor(name string) string {
	n := strings.ToUpper(name)
	for _, s := range shapes {
		if s.match(n) {
			return s.make()
		}
	}
	if dsn := dsnFor(n); dsn != "" {
		return dsn
	}
	return randFrom(alnum, 40)
}

// shape is one provider's credential format.
type shape struct {
	match func(name string) bool
	make  func() string
}

func has(parts ...string) func(string) bool {
	return func(n string) bool {
		for _, p := range parts {
			if strings.Contains(n, p) {
				return true
			}
		}
		return false
	}
}

func is(names ...string) func(string) bool {
	return func(n string) bool { return slices.Contains(names, n) }
}

const hexDigits = "0123456789abcdef"
const urlSafe = alnum + "-_"

// shapes are checked in order; the first match wins.
var shapes = []shape{
	{is("AWS_ACCESS_KEY_ID"), func() string { return "AKIA" + randFrom(upperNum, 16) }},
	{is("AWS_SECRET_ACCESS_KEY"), func() string { return randFrom(alnum, 40) }},
	{has("GITLAB"), func() string { return "glpat-" + randFrom(urlSafe, 20) }},
	{func(n string) bool { return strings.Contains(n, "GITHUB") || n == "GH_TOKEN" }, func() string { return checksummed("ghp_") }},
	{has("NPM"), func() string { return checksummed("npm_") }},
	{has("OPENAI"), func() string { return "sk-proj-" + randFrom(urlSafe, 48) }},
	{has("ANTHROPIC"), func() string { return "sk-ant-api03-" + randFrom(urlSafe, 93) + "AA" }},
	{has("SLACK"), func() string {
		return "xoxb-" + randFrom("0123456789", 13) + "-" + randFrom("0123456789", 13) + "-" + randFrom(alnum, 24)
	}},
	{has("STRIPE"), func() string { return "sk_live_51" + randFrom(alnum, 97) }},
	{has("GOOGLE", "GEMINI", "MAPS_API"), func() string { return "AIza" + randFrom(urlSafe, 35) }},
	{has("HUGGINGFACE", "HF_TOKEN", "HF_API"), func() string { return "hf_" + randFrom(alnum, 34) }},
	{has("PERPLEXITY"), func() string { return "pplx-" + randFrom(alnum, 48) }},
	{has("FIRECRAWL"), func() string { return "fc-" + randFrom(hexDigits, 32) }},
	{has("TAVILY"), func() string { return "tvly-" + randFrom(alnum, 32) }},
	{has("BRAVE"), func() string { return "BSA" + randFrom(alnum, 28) }},
	{has("NOTION"), func() string { return "ntn_" + randFrom("0123456789", 12) + randFrom(alnum, 34) }},
	{has("LINEAR"), func() string { return "lin_api_" + randFrom(alnum, 40) }},
	{has("SENDGRID"), func() string { return "SG." + randFrom(urlSafe, 22) + "." + randFrom(urlSafe, 43) }},
	{has("PINECONE"), func() string { return "pcsk_" + randFrom(alnum, 5) + "_" + randFrom(alnum, 64) }},
	{has("ANON_KEY", "SERVICE_ROLE", "SUPABASE_KEY", "JWT"), jwt},
	{has("POSTMARK", "EXA_API", "CLARITY"), uuid},
}

// base62 is the digit order of GitHub's and npm's token checksums.
const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// checksummed is a token in the format GitHub (ghp_, gho_, …) and npm
// (npm_) issue: the prefix, 30 random base62 characters, and the CRC32 of
// those 30 in base62, left-padded with 0 to 6 characters. Secret scanners
// and careful stealers check it; a random tail fails that check.
func checksummed(prefix string) string {
	body := randFrom(alnum, 30)
	return prefix + body + crcTail(body)
}

// crcTail is the 6-character base62 CRC32 of body.
func crcTail(body string) string {
	n := crc32.ChecksumIEEE([]byte(body))
	out := []byte("000000")
	for i := len(out) - 1; i >= 0 && n > 0; i-- {
		out[i] = base62[n%62]
		n /= 62
	}
	return string(out)
}

// jwt is a token of the shape Supabase and many others issue.
func jwt() string {
	return "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + randFrom(urlSafe, 120) + "." + randFrom(urlSafe, 43)
}

func uuid() string {
	h := randFrom(hexDigits, 32)
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:]
}

// dsnFor gives connection strings and URLs the scheme their name asks for,
// with the canary as the password.
func dsnFor(n string) string {
	if !(strings.HasSuffix(n, "_URL") || strings.HasSuffix(n, "_URI") || strings.HasSuffix(n, "_DSN") ||
		strings.Contains(n, "CONNECTION_STRING")) {
		return ""
	}
	pw := randFrom(alnum, 24)
	switch {
	case strings.Contains(n, "MONGO"):
		return "mongodb://app:" + pw + "@db.corp.internal:27017/app?authSource=admin"
	case strings.Contains(n, "REDIS"):
		return "redis://default:" + pw + "@cache.corp.internal:6379/0"
	case strings.Contains(n, "MYSQL"):
		return "mysql://app:" + pw + "@db.corp.internal:3306/app"
	case strings.Contains(n, "AMQP") || strings.Contains(n, "RABBIT"):
		return "amqp://app:" + pw + "@mq.corp.internal:5672/"
	case strings.Contains(n, "SENTRY"):
		return "https://" + randFrom(hexDigits, 32) + "@o0.ingest.corp.internal/1"
	case strings.Contains(n, "WEBHOOK"):
		return "https://hooks.corp.internal/services/" + pw
	}
	return "postgres://app:" + pw + "@db.corp.internal:5432/app"
}

// WorkspaceEnv is the decoy .env of the workspace the server starts in,
// which dotenv-style loaders read at startup.
const WorkspaceEnv = "<workspace>/.env"

// Generate creates a fresh set with every provider variable (DefaultEnv),
// the extra ones the server needs (extraEnv), and the decoy files. Audits
// plant a subset instead (Choice, GenerateEnv).
func Generate(extraEnv []string) *Set {
	return GenerateEnv(append(slices.Clone(DefaultEnv), extraEnv...))
}

func (s *Set) sort() {
	slices.SortFunc(s.all, func(a, b Canary) int { return strings.Compare(a.Name, b.Name) })
}

func (s *Set) addFile(path string, mode int64, content string, values ...string) {
	s.Files = append(s.Files, File{Path: path, Content: []byte(content), Mode: mode, Canary: true})
	s.all = append(s.all, Canary{Name: "file:" + path, Values: values})
}

func (s *Set) addDecoys() {
	akid, secret := "AKIA"+randFrom(upperNum, 16), randFrom(alnum, 40)
	s.addFile("~/.aws/credentials", 0o600,
		"[default]\naws_access_key_id = "+akid+"\naws_secret_access_key = "+secret+"\n", akid, secret)

	keyBody := randFrom(alnum, 64)
	var pem strings.Builder
	pem.WriteString("-----BEGIN OPENSSH PRIVATE KEY-----\n")
	body := base64.StdEncoding.EncodeToString([]byte("openssh-key-v1\x00" + keyBody + randFrom(alnum, 300)))
	for len(body) > 70 {
		pem.WriteString(body[:70] + "\n")
		body = body[70:]
	}
	pem.WriteString(body + "\n-----END OPENSSH PRIVATE KEY-----\n")
	s.addFile("~/.ssh/id_rsa", 0o600, pem.String(), keyBody)

	npm := checksummed("npm_")
	s.addFile("~/.npmrc", 0o600, "//registry.npmjs.org/:_authToken="+npm+"\n", npm)

	gh := checksummed("gho_")
	s.addFile("~/.config/gh/hosts.yml", 0o600,
		"github.com:\n    user: dev\n    oauth_token: "+gh+"\n    git_protocol: https\n", gh)

	dockerPass := randFrom(alnum, 32)
	auth := base64.StdEncoding.EncodeToString([]byte("dev:" + dockerPass))
	s.addFile("~/.docker/config.json", 0o600,
		`{"auths":{"registry.corp.internal":{"auth":"`+auth+`"}}}`+"\n", dockerPass)

	netrc := randFrom(alnum, 28)
	s.addFile("~/.netrc", 0o600, "machine api.corp.internal\n  login dev\n  password "+netrc+"\n", netrc)

	envKey, dbPass := "sk-proj-"+randFrom(alnum, 48), randFrom(alnum, 24)
	s.addFile(WorkspaceEnv, 0o644,
		"OPENAI_API_KEY="+envKey+"\nDATABASE_URL=postgres://app:"+dbPass+"@db.corp.internal:5432/app\n", envKey, dbPass)

	cursor := "sk-ant-api03-" + randFrom(alnum, 48)
	s.addFile("~/.cursor/mcp.json", 0o644,
		`{"mcpServers":{"notes":{"command":"npx","args":["-y","notes-mcp"],"env":{"ANTHROPIC_API_KEY":"`+cursor+`"}}}}`+"\n", cursor)

	claude := "sk-ant-api03-" + randFrom(alnum, 48)
	s.addFile("~/.claude/settings.json", 0o644,
		`{"env":{"ANTHROPIC_API_KEY":"`+claude+`"},"permissions":{"allow":[]}}`+"\n", claude)

	// Ordinary desktop files: present so that writes to them are visible as
	// modifications, but reading them is not a finding.
	s.Files = append(s.Files, []File{
		{Path: "~/.bashrc", Content: []byte("# ~/.bashrc\nalias ll='ls -l'\n"), Mode: 0o644},
		{Path: "~/.profile", Content: []byte("# ~/.profile\n[ -f ~/.bashrc ] && . ~/.bashrc\n"), Mode: 0o644},
		{Path: "~/.gitconfig", Content: []byte("[user]\n\tname = Dev\n\temail = dev@corp.internal\n"), Mode: 0o644},
	}...)
	s.addWorkspace()
}

// All returns every canary, sorted by name.
func (s *Set) All() []Canary { return s.all }

// EnvList returns the canary variables as sorted NAME=value pairs.
func (s *Set) EnvList() []string {
	out := make([]string, 0, len(s.Env))
	for k, v := range s.Env {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// FileCanary returns the canary name for a decoy path ("~/.aws/credentials"
// or "<workspace>/.env"), or "" if the path is not a canary file.
func (s *Set) FileCanary(path string) string {
	for _, f := range s.Files {
		if f.Canary && f.Path == path {
			return "file:" + f.Path
		}
	}
	return ""
}

// Redact replaces every canary value in s with a placeholder naming it, so
// text from the sandbox (stderr, payload excerpts) can be shown safely.
func (s *Set) Redact(text string) string {
	for _, c := range s.all {
		for _, v := range c.Values {
			if v != "" {
				text = strings.ReplaceAll(text, v, fmt.Sprintf("<canary %s>", c.Name))
			}
		}
	}
	return text
}
