package audit

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/moby/moby/client"

	"github.com/mcp-audit/mcp-audit/internal/buildinfo"
	"github.com/mcp-audit/mcp-audit/internal/canary"
	"github.com/mcp-audit/mcp-audit/internal/classify"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/target"
	"github.com/mcp-audit/mcp-audit/internal/variant"
)

// ociImage is what an image's configuration says about how it runs.
type ociImage struct {
	ref, id    string
	digest     string // the repository digest when the image has one, else its id
	entrypoint []string
	cmd        []string
	env        []string
	workdir    string
	user       string
}

// inspectOCI reads the local image (mcp-audit does not pull: see
// docs/targets.md).
func inspectOCI(ctx context.Context, e sandbox.Engine, spec target.Spec) (*ociImage, error) {
	ref := spec.ImageRef()
	res, err := e.ImageInspect(ctx, ref)
	if err != nil {
		if err = pullImage(ctx, e, ref); err == nil {
			res, err = e.ImageInspect(ctx, ref)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: image %s is not available to the engine (pull or load it first): %v", target.ErrUsage, ref, err)
	}
	img := &ociImage{ref: ref, id: res.ID, digest: res.ID}
	for _, d := range res.RepoDigests {
		if repo, dg := target.SplitImageRef(d); repo == spec.Name || strings.HasSuffix(repo, "/"+spec.Name) {
			img.digest = dg
			break
		}
	}
	if c := res.Config; c != nil {
		img.entrypoint, img.cmd, img.env, img.workdir, img.user = c.Entrypoint, c.Cmd, c.Env, c.WorkingDir, c.User
	}
	return img, nil
}

// argv is the image's command as `docker run IMAGE ARGS` would run it:
// the entrypoint, then the arguments or else the image's CMD; --cmd
// replaces both.
func (img *ociImage) argv(o Options) ([]string, error) {
	argv := slices.Clone(img.entrypoint)
	switch {
	case len(o.Command) > 0:
		argv = slices.Clone(o.Command)
	case len(o.Args) > 0:
	default:
		argv = append(argv, img.cmd...)
	}
	for _, a := range o.Args {
		argv = append(argv, expand(a))
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("%w: image %s has no entrypoint or command; give one with --cmd", target.ErrUsage, img.ref)
	}
	return argv, nil
}

// prepareOCI is Prepare for an image: no fetch and no install; the
// image gets the tools bundle as a cached layer and runs as one of its
// own unprivileged users, with the decoy home, canaries and sink of every
// audit.
func prepareOCI(ctx context.Context, d Deps, o Options, spec target.Spec, httpEP *sandbox.HTTPEndpoint) (*Prepared, error) {
	img, err := inspectOCI(ctx, d.Engine, spec)
	if err != nil {
		return nil, err
	}
	argv, err := img.argv(o)
	if err != nil {
		return nil, err
	}
	sandboxID, err := sandbox.EnsureImage(ctx, d.Engine, sandbox.ImageOptions{Ref: o.Sandbox.Image, Flavor: o.Sandbox.ImageFlavor, Log: logWriter{d.Log}})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRuntime, err)
	}
	sb := &sandbox.Sandbox{Engine: d.Engine, Log: d.Log}
	user, uid, err := sb.ImageUser(ctx, img.id, img.user)
	if err != nil {
		return nil, fmt.Errorf("%w: image %s: %v", target.ErrUsage, img.ref, err)
	}
	runImage, err := sb.OCIImage(ctx, img.ref, img.id, o.Sandbox.Image, sandboxID)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRuntime, err)
	}
	workdir := img.workdir
	if workdir == "" {
		workdir = "/"
	}
	layout := classify.Layout{Home: Home, Workspace: Workspace}
	if workdir != "/" {
		layout.PkgRoot = workdir
	}
	secret, seed := d.secret(), spec.Name+"@"+img.digest
	plant := plantChoice(o, secret.Seed(seed, "canaries"))
	cs := canary.GenerateEnv(plant.Env())
	man := &m.Manifest{SchemaVersion: m.SchemaVersion, Method: m.MethodVersion, Target: m.Target{Ecosystem: m.EcosystemOCI, Name: spec.Name,
		Version: img.digest, Integrity: img.id, Entry: layout.NormalizeArgv(argv), Supplied: suppliedHosts(o)}}
	man.Run.Tool = buildinfo.Tool()
	man.Run.Image, man.Run.ImageID, man.Run.NetworkMode = o.Sandbox.Image, sandboxID, o.Sandbox.Network
	profile := variant.PickProfile(secret.Seed(seed, "client"), o.Run)
	clientName, base := profile.Name, profile.Env(variant.Canonical, Workspace)
	man.Run.ClientEnv, man.Run.CanaryEnv = clientName, plant.Env()
	if spec.Range != "" && !strings.HasPrefix(spec.Range, "sha256:") {
		man.Run.Notes = append(man.Run.Notes, "image tag "+spec.Range)
	}
	sbSpec := sandboxSpec(o, cs, &target.Package{}, argv, workdir, ociEnv(img.env, base))
	sbSpec.Image, sbSpec.Trees, sbSpec.Workdir, sbSpec.User, sbSpec.UID = runImage, nil, workdir, user, uid
	sbSpec.Tools, sbSpec.HTTP = sandbox.ToolsPath, httpEP
	markTransport(man, httpEP)
	if err := networkSpec(o, &sbSpec, sandboxID); err != nil {
		return nil, err
	}
	sbSpec.Net.BaseImage = o.Sandbox.Image // the sink runs from the sandbox image, not the audited one
	d.Log.Debug("oci image prepared", "image", runImage, "user", user)
	secret.Traced(&sbSpec, seed)
	return &Prepared{Spec: sbSpec, Layout: layout, Canaries: cs, Manifest: man, pkg: &target.Package{}, maxTrace: o.Sandbox.MaxTraceBytes, plant: plant,
		secret: secret, seed: seed}, nil
}

// ociEnv is the image's environment with the client's on top, except
// PATH: the image's own PATH finds its programs.
func ociEnv(image, client []string) []string {
	env := slices.Clone(image)
	hasPath := slices.ContainsFunc(image, func(e string) bool { return strings.HasPrefix(e, "PATH=") })
	for _, e := range client {
		if strings.HasPrefix(e, "PATH=") && hasPath {
			continue
		}
		env = append(env, e)
	}
	return env
}

// imagePuller is the engine's pull, when it has one (the moby client does).
type imagePuller interface {
	ImagePull(ctx context.Context, ref string, options client.ImagePullOptions) (client.ImagePullResponse, error)
}

// pullImage asks the engine to pull a reference that names its registry
// (the engine fetches data; nothing runs). Not exercised by the tests:
// no registry is reachable where they run.
func pullImage(ctx context.Context, e sandbox.Engine, ref string) error {
	p, ok := e.(imagePuller)
	if repo, _ := target.SplitImageRef(ref); !ok || !strings.ContainsAny(strings.Split(repo, "/")[0], ".:") {
		return fmt.Errorf("not pulled: %s names no registry host", ref)
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	res, err := p.ImagePull(pctx, ref, client.ImagePullOptions{})
	if err != nil {
		return fmt.Errorf("pulling %s: %w", ref, err)
	}
	defer res.Close()
	return res.Wait(pctx)
}
