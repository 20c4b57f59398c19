package testenv

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

// BuildImage builds tag from files (a Dockerfile among them) without a
// network: fixture images are built from the local sandbox image, never
// pulled. The caller removes the image.
func BuildImage(t testing.TB, tag string, files []sandbox.TarFile) {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		tw.WriteHeader(&tar.Header{Name: f.Path, Mode: f.Mode, Size: int64(len(f.Content))})
		tw.Write(f.Content)
	}
	tw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := Engine(t).ImageBuild(ctx, &buf, client.ImageBuildOptions{Tags: []string{tag}, Remove: true, ForceRemove: true, NetworkMode: "none"})
	if err != nil {
		t.Fatalf("building %s: %v", tag, err)
	}
	out, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if bytes.Contains(out, []byte(`"error"`)) {
		t.Fatalf("building %s: %s", tag, out)
	}
}
