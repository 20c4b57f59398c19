package action

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/config"
)

// A pull request must not be able to talk its own check into passing, so
// it is judged by the policy it would change, not by its own: fail_on,
// allow, network, env and canary_env, and the baselines, come from the
// base commit. What a pull request changes in them is shown and, when it
// loosens them, is a finding of its own (loosen.go).

// maxBaselineBytes bounds the base commit's baselines read back from git.
const maxBaselineBytes = 256 << 20

// baseConfig reads the configuration of the base commit, nil when the
// base has none or an invalid one (then every setting is new).
func baseConfig(ws, cfgRel, base string) *config.Config {
	data, err := git(ws, "show", base+":"+filepath.ToSlash(cfgRel))
	if err != nil {
		return nil
	}
	c, err := config.Parse(filepath.Join(ws, cfgRel), data)
	if err != nil {
		return nil
	}
	return c
}

// underBasePolicy is head with the base's policy: each server keeps what
// the pull request says to audit and how to run it (target, version, bin,
// args, tools), and takes its policy settings from the base's server that
// runs the same target (servermatch.go), whatever its name; a server new
// in the pull request, or a name pointed at another target, keeps its own,
// and what it loosens is a finding. The file-wide fail_on and network are the base's.
// baselines is where the base's baselines were extracted ("" keeps head's).
func underBasePolicy(head, base *config.Config, baselines string) *config.Config {
	eff := *head
	if baselines != "" {
		eff.Baselines = baselines
	}
	if base == nil {
		return &eff
	}
	eff.FailOn, eff.Network = base.FailOn, base.Network
	eff.Servers = make([]*config.Server, len(head.Servers))
	for i, s := range head.Servers {
		cp := *s
		if b := baseEntry(base, s); b != nil {
			cp.FailOn, cp.Allow, cp.Network, cp.Env, cp.CanaryEnv = b.FailOn, b.Allow, b.Network, b.Env, b.CanaryEnv
		}
		eff.Servers[i] = &cp
	}
	return &eff
}

// extractBaselines writes the base commit's baseline directory (rel to
// the workspace) under dst and returns the directory that now holds it. A
// base without baselines yields an empty directory.
func extractBaselines(ws, base, rel, dst string) (string, error) {
	rel = filepath.ToSlash(filepath.Clean(rel))
	out := filepath.Join(dst, "baselines")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	if strings.HasPrefix(rel, "../") || rel == ".." || path.IsAbs(rel) {
		return "", fmt.Errorf("reading the base's baselines: %s is outside the repository", rel)
	}
	if _, err := git(ws, "cat-file", "-e", base+":"+rel); err != nil {
		return out, nil
	}
	data, err := git(ws, "archive", "--format=tar", base+":"+rel)
	if err != nil {
		return "", fmt.Errorf("reading the base's baselines: %w", err)
	}
	if err := untar(bytes.NewReader(data), out); err != nil {
		return "", fmt.Errorf("extracting the base's baselines: %w", err)
	}
	return out, nil
}

// untar writes the regular files of a tar stream under dir. Names are
// from our own repository's tree, but are still kept below dir.
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	var total int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		name := filepath.FromSlash(path.Clean("/" + h.Name))[1:]
		if total += h.Size; total > maxBaselineBytes {
			return fmt.Errorf("more than %d bytes of baselines", maxBaselineBytes)
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		data, err := io.ReadAll(io.LimitReader(tr, h.Size))
		if err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
}
