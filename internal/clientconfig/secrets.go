package clientconfig

import (
	"net/url"
	"regexp"
	"strings"
)

// A secret in clear is found by the variable's name (GITHUB_TOKEN,
// API_KEY, …) holding a literal value, or by the value's own shape (a
// GitHub token, an AWS key id, a JWT, a URL with a password). A reference
// (${VAR}, ${env:VAR}, ${input:id}, ${{ secrets.X }}) or a placeholder
// (<token>, your-key-here) is not a secret. Messages name the variable
// and the kind of credential, never the value.

// reSecretName matches names that hold credentials.
var reSecretName = regexp.MustCompile(`(?i)(token|secret|passw(or)?d|passwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key|` +
	`credential|auth(orization|entication)?($|[_-])|(^|[_-])pat$|(^|[_-])key$|session|cookie|bearer|(^|[_-])dsn$|` +
	`connection[_-]?string|signing|webhook)`)

// secretShapes are credential formats with a recognisable shape.
var secretShapes = []struct {
	what string
	re   *regexp.Regexp
}{
	{"a GitHub token", regexp.MustCompile(`\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})`)},
	{"a GitLab token", regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}`)},
	{"a Slack token", regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
	{"an API secret key (sk-…)", regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{20,}`)},
	{"a Stripe key", regexp.MustCompile(`\b[sr]k_(live|test)_[A-Za-z0-9]{16,}`)},
	{"an AWS access key id", regexp.MustCompile(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{"a Google API key", regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
	{"a Google OAuth token", regexp.MustCompile(`\bya29\.[0-9A-Za-z_-]{20,}`)},
	{"an npm token", regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}`)},
	{"a PyPI token", regexp.MustCompile(`\bpypi-[A-Za-z0-9_-]{50,}`)},
	{"a Hugging Face token", regexp.MustCompile(`\bhf_[A-Za-z0-9]{30,}`)},
	{"a SendGrid key", regexp.MustCompile(`\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`)},
	{"a JSON web token", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`)},
	{"a private key", regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----`)},
	{"a URL with a password", regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]+:[^/\s@]+@`)},
	{"a bearer token", regexp.MustCompile(`(?i)^(bearer|token|basic)\s+[A-Za-z0-9._~+/=-]{12,}$`)},
}

// reReference matches the variable references clients expand.
var reReference = regexp.MustCompile(`\$\{\{?[^}]*\}\}?|\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%`)

// rePlaceholder matches values written to be replaced.
var rePlaceholder = regexp.MustCompile(`(?i)^(<[^>]*>|\[[^\]]*\]|your[-_ ].*|.*[-_]here|x{3,}|\*{3,}|\.{3}|changeme|todo|replace[-_ ]?me.*|placeholder.*|none|null|true|false|-?[0-9.]+)$`)

// shapeOf names the credential a value looks like, or "".
func shapeOf(v string) string {
	for _, s := range secretShapes {
		if s.re.MatchString(v) {
			return s.what
		}
	}
	return ""
}

// literal: a value the user wrote out, not a reference or placeholder.
func literal(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" || rePlaceholder.MatchString(v) {
		return false
	}
	rest := reReference.ReplaceAllString(v, "")
	rest = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), "Bearer"))
	return rest != "" && !rePlaceholder.MatchString(rest)
}

// secretIn says why a named value is a secret in clear ("" when it is not).
func secretIn(name, value string) string {
	if !literal(value) {
		return ""
	}
	if what := shapeOf(value); what != "" {
		return what
	}
	if reSecretName.MatchString(name) && len(strings.TrimSpace(value)) >= 6 && !isPathLike(value) && !strings.Contains(value, "://") {
		return "a credential"
	}
	return ""
}

// secretFlag: a command-line option that takes a credential as its value.
func secretFlag(arg string) bool {
	name := strings.TrimLeft(arg, "-")
	return strings.HasPrefix(arg, "-") && name != "" && reSecretName.MatchString(name)
}

// urlSecret says why a URL carries a credential ("" when it does not):
// a password or a query parameter named like one.
func urlSecret(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	if _, ok := u.User.Password(); ok {
		return "a password in the URL"
	}
	for k, vs := range u.Query() {
		for _, v := range vs {
			if (reSecretName.MatchString(k) || k == "key") && literal(v) {
				return "a credential in the URL's query (" + quoteName(k) + "=…)"
			}
		}
	}
	return ""
}
