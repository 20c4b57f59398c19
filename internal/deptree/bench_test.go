package deptree

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// synthTree writes n packages, a tenth of them nested one level, each with
// a package.json of a few dependencies and a lockfile entry.
func synthTree(b testing.TB, n int) string {
	dir := b.TempDir()
	var lock []string
	for i := 0; i < n; i++ {
		rel := fmt.Sprintf("node_modules/pkg-%d", i)
		if i%10 == 9 {
			rel = fmt.Sprintf("node_modules/pkg-%d/node_modules/pkg-%d", i-1, i)
		}
		write(b, dir, rel+"/package.json", fmt.Sprintf(`{"name":"pkg-%d","version":"1.%d.0","bin":{"pkg-%d":"cli.js"},"dependencies":{"pkg-%d":"^1.0.0","pkg-%d":"~1.2.0","pkg-%d":"1.0.0"}}`, i, i, i, i+1, i+2, i+3))
		lock = append(lock, fmt.Sprintf(`"%s":{"version":"1.%d.0","resolved":"http://192.0.2.1/x/-/pkg-%d.tgz","integrity":"sha512-%s"}`, rel, i, i, strings.Repeat("A", 86)))
	}
	write(b, dir, "node_modules/.package-lock.json", `{"lockfileVersion":3,"packages":{`+strings.Join(lock, ",")+`}}`)
	return dir
}

// BenchmarkReadNPM reads a 2,000-package tree (a large MCP server's) and
// reports the encoded tree's size per package.
func BenchmarkReadNPM(b *testing.B) {
	dir := synthTree(b, 2000)
	var size int
	for b.Loop() {
		tree, err := ReadNPM(dir, ReadOptions{Resolved: func(s string) string { return s }})
		if err != nil {
			b.Fatal(err)
		}
		enc, _ := json.MarshalIndent(tree, "", "  ")
		size = len(enc)
	}
	b.ReportMetric(float64(size)/2000, "bytes/pkg")
}
