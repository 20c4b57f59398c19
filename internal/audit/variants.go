package audit

import (
	"cmp"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/variant"
)

// The client identity sent in initialize. A server that looks for an
// auditor's name in clientInfo sees the one a popular client sends,
// unless the user asks for another (--client-info NAME/VERSION).

func (o Options) clientName() string {
	name, _, _ := strings.Cut(o.ClientInfo, "/")
	if name == "" {
		return mcpclient.DefaultClientName
	}
	return name
}

func (o Options) clientVersion() string {
	name, version, ok := strings.Cut(o.ClientInfo, "/")
	if name == "" || !ok || version == "" {
		return mcpclient.DefaultClientVersion
	}
	return version
}

// secret is the installation's secret: the one given, else the cache
// directory's (made on first use); a fixed one when neither can be had,
// which makes the choices predictable (the manifest says so).
func (d Deps) secret() variant.Secret {
	if d.Secret != nil {
		return d.Secret
	}
	dir := target.DefaultCacheDir()
	if d.Fetcher != nil && d.Fetcher.CacheDir != "" {
		dir = d.Fetcher.CacheDir
	}
	if s, err := variant.LoadSecret(dir, nil); err == nil {
		return s
	}
	return variant.Secret("mcp-audit: no installation secret")
}

// witnessIdentity gives the witness run another identity than the traced
// runs' (variant.WitnessSpec), and its layout.
func witnessIdentity(w *Prepared) {
	c, id := w.secret.WitnessSpec(&w.Spec, w.seed, variant.Client{Name: mcpclient.DefaultClientName, Profile: w.Manifest.Run.ClientEnv})
	w.client = c.Name + "/" + c.Version
	w.Manifest.Run.ClientEnv = c.Profile
	for _, p := range []*string{&w.Layout.Home, &w.Layout.Workspace, &w.Layout.PkgRoot, &w.Layout.AppRoot} {
		*p = variant.MovePath(*p, Home, id.Home) // the package's copy lives in the home too
	}
}

// variant describes a run for run.variants.
func (p *Prepared) variant(name string) m.Variant {
	secrets := "the primary run's declared ones, its own subset of the others"
	switch name {
	case runCalibration:
		secrets = "the primary run's"
	case runSecrets:
		secrets = "others of the same shapes"
	}
	return variant.Describe(p.Spec, name, secrets, cmp.Or(p.client, mcpclient.DefaultClientName+"/"+mcpclient.DefaultClientVersion), p.Manifest.Run.ClientEnv)
}

func primaryVariant(p *Prepared) m.Variant {
	v := p.variant("primary run")
	v.Secrets = "its own"
	return v
}
