package policy

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// benchText is 64 KiB (the chunk the audit judges at once) of ordinary
// tool text: the real tools' descriptions, repeated.
func benchText(b *testing.B) string {
	data, err := os.ReadFile("testdata/real-tools.json")
	if err != nil {
		b.Fatal(err)
	}
	var tools []struct{ Description string }
	json.Unmarshal(data, &tools)
	var sb strings.Builder
	for sb.Len() < 64<<10 {
		for _, t := range tools {
			sb.WriteString(t.Description + "\n")
		}
	}
	return sb.String()[:64<<10]
}

// BenchmarkInjectionSigns judges 64 KiB of ordinary text as a message.
func BenchmarkInjectionSigns(b *testing.B) {
	text := benchText(b)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		InjectionSigns(text)
	}
}

// BenchmarkInjectionSignsCJK judges 64 KiB of ordinary Chinese and
// Japanese text.
func BenchmarkInjectionSignsCJK(b *testing.B) {
	text := strings.Repeat("读取指定路径的文件并返回其内容。在终端中执行命令并返回输出。指定されたパスのファイルを読み込み、その内容を返します。\n", 700)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		InjectionSigns(text)
	}
}
