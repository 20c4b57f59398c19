package sandbox

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"sync"
)

// The sink image is the sandbox image plus a static mcp-audit: the same
// for every audit of a process. Reading and hashing the ~25 MiB binary
// and asking the engine for the layer cost a few hundred milliseconds on
// a loaded machine, on every audit's critical path before the sink can be
// created; this remembers the image per base image and binary (path,
// size and modification time), so only the first audit of a process (or
// one after the binary changed) pays it.
var sinkImages struct {
	sync.Mutex
	refs map[string]string
}

// sinkBinaryPath is the file SinkBinary reads.
func sinkBinaryPath() (string, error) {
	if p := os.Getenv("MCP_AUDIT_SINK_BINARY"); p != "" {
		return p, nil
	}
	return os.Executable()
}

// sinkImageKey identifies the binary and base image an image was built
// from; "" when the binary cannot be examined (then nothing is
// remembered).
func sinkImageKey(baseImage, baseID string) string {
	p, err := sinkBinaryPath()
	if err != nil {
		return ""
	}
	st, err := os.Stat(p)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s\x00%s\x00%s\x00%d\x00%d", baseImage, baseID, p, st.Size(), st.ModTime().UnixNano())
}

// sinkImage returns the sink image for spec, building it the first time.
// A remembered image is still checked with one inspect (cheap), because a
// cleanup may have removed it since.
func (s *Sandbox) sinkImage(ctx context.Context, spec Spec) (string, error) {
	// An OCI target's own image is not the sink's base: the sandbox
	// image is (Net.BaseImage).
	base := cmp.Or(spec.Net.BaseImage, spec.Image)
	key := sinkImageKey(base, spec.Net.BaseImageID)
	sinkImages.Lock()
	ref, ok := sinkImages.refs[key]
	sinkImages.Unlock()
	if ok && key != "" {
		if _, err := s.Engine.ImageInspect(ctx, ref); err == nil {
			return ref, nil
		}
	}
	bin, err := SinkBinary()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(bin)
	ref, err = s.LayerImage(ctx, base, spec.Net.BaseImageID, "sink\x00"+hex.EncodeToString(sum[:]),
		[]TarFile{{Path: sinkDir, Dir: true, Mode: 0o755}, {Path: sinkBinPath, Content: bin, Mode: 0o755}}, nil)
	if err != nil {
		return "", fmt.Errorf("preparing sink image: %w", err)
	}
	if key != "" {
		sinkImages.Lock()
		if sinkImages.refs == nil {
			sinkImages.refs = map[string]string{}
		}
		sinkImages.refs[key] = ref
		sinkImages.Unlock()
	}
	return ref, nil
}
