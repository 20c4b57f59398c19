package target

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// DefaultRegistry is npm's public registry, used when nothing else is
// configured.
const DefaultRegistry = "https://registry.npmjs.org/"

// NPMConfig is the part of npm's configuration mcp-audit honors.
type NPMConfig struct {
	Registry string            // default registry URL, with trailing slash
	Scoped   map[string]string // "@scope" -> registry URL
	tokens   map[string]string // "//host/path/" -> token (never printed)
	CAFiles  []string          // extra CA bundles to trust
}

// LoadNPMConfig reads, lowest precedence first: ~/.npmrc (or
// $NPM_CONFIG_USERCONFIG), ./.npmrc of the current directory, then
// NPM_CONFIG_REGISTRY / npm_config_registry and the CA variables
// NODE_EXTRA_CA_CERTS and NPM_CONFIG_CAFILE. getenv is os.Getenv in
// production.
func LoadNPMConfig(getenv func(string) string) NPMConfig {
	c := NPMConfig{Registry: DefaultRegistry, Scoped: map[string]string{}, tokens: map[string]string{}}
	user := getenv("NPM_CONFIG_USERCONFIG")
	if user == "" {
		if h := getenv("HOME"); h != "" {
			user = filepath.Join(h, ".npmrc")
		}
	}
	for _, f := range []string{user, ".npmrc"} {
		if f != "" {
			c.readFile(f, getenv)
		}
	}
	for _, k := range []string{"NPM_CONFIG_REGISTRY", "npm_config_registry"} {
		if v := getenv(k); v != "" {
			c.Registry = v
		}
	}
	for _, k := range []string{"NODE_EXTRA_CA_CERTS", "NPM_CONFIG_CAFILE", "npm_config_cafile"} {
		if v := getenv(k); v != "" {
			c.CAFiles = append(c.CAFiles, v)
		}
	}
	c.Registry = withSlash(c.Registry)
	return c
}

var reEnvRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

func (c *NPMConfig) readFile(path string, getenv func(string) string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.Trim(strings.TrimSpace(v), `"`)
		v = reEnvRef.ReplaceAllStringFunc(v, func(ref string) string { return getenv(ref[2 : len(ref)-1]) })
		switch {
		case k == "registry":
			c.Registry = v
		case strings.HasPrefix(k, "@") && strings.HasSuffix(k, ":registry"):
			c.Scoped[strings.TrimSuffix(k, ":registry")] = withSlash(v)
		case strings.HasPrefix(k, "//") && strings.HasSuffix(k, ":_authToken"):
			c.tokens[strings.TrimSuffix(k, ":_authToken")] = v
		case k == "cafile":
			c.CAFiles = append(c.CAFiles, v)
		}
	}
}

func withSlash(u string) string {
	if !strings.HasSuffix(u, "/") {
		return u + "/"
	}
	return u
}

// RegistryFor returns the registry serving a package name.
func (c NPMConfig) RegistryFor(name string) string {
	if scope, _, ok := strings.Cut(name, "/"); ok && strings.HasPrefix(scope, "@") {
		if r := c.Scoped[scope]; r != "" {
			return r
		}
	}
	return c.Registry
}

// token returns the auth token configured for a URL, if any.
func (c NPMConfig) token(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	key := "//" + p.Host + p.Path
	best := ""
	for prefix, tok := range c.tokens {
		if strings.HasPrefix(key, prefix) && len(prefix) > len(best) {
			best = prefix
			_ = tok
		}
	}
	return c.tokens[best]
}

// HTTPClient returns a client that trusts the system roots plus every
// configured extra CA bundle, and honors HTTPS_PROXY/NO_PROXY. Users behind
// TLS-intercepting proxies need the extra bundle; this machine does too.
func (c NPMConfig) HTTPClient() (*http.Client, error) {
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	for _, f := range c.CAFiles {
		pem, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("reading CA bundle %s: %w", f, err)
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CA bundle %s holds no PEM certificates", f)
		}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &http.Client{Transport: tr, Timeout: 5 * time.Minute}, nil
}
