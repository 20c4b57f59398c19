package canary

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/google/go-cmp/cmp"
)

// fixedSet is a set with known values, so expectations are exact.
func fixedSet() []Canary {
	return []Canary{
		{Name: "env:GITHUB_TOKEN", Values: []string{"ghp_Q8rTz3VbN6mKx2LpW9sYc4HdJ7fGa1Ue5RoI"}},
		{Name: "env:AWS_SECRET_ACCESS_KEY", Values: []string{"wJ7kP2xQ9mN4vB8cR1tY6uI3oL5aS0dF7gH2jK9z"}},
		{Name: "env:OPENAI_API_KEY", Values: []string{"sk-proj-Ab3_Cd5-Ef7Gh9Ij1Kl3Mn5Op7Qr9St1Uv3Wx5Yz7Ab9Cd1Ef3G"}},
		{Name: "env:DATABASE_URL", Values: []string{"postgres://mcpaudit:Zx8Cv7Bn6Mq5Wr4Ty3Ui2Op1@db.mcp-audit.test:5432/app"}},
		{Name: "env:SUPABASE_KEY", Values: []string{"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.Pq9Rs8Tu7Vw6Xy5Za4Bc3De2Fg1Hi0Jk.Lm9No8Pq7Rs6"}},
	}
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func zl(b []byte) []byte {
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func rawDeflate(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestSpeed)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func br(b []byte) []byte {
	var buf bytes.Buffer
	w := brotli.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func rev(s string) string { return string(reverse([]byte(s))) }

// TestFinderForms: every form of a value is found, named by its encoding,
// and a whole value is not reported again as its own parts.
func TestFinderForms(t *testing.T) {
	f := NewFinder(fixedSet())
	gh := "ghp_Q8rTz3VbN6mKx2LpW9sYc4HdJ7fGa1Ue5RoI"
	aws := "wJ7kP2xQ9mN4vB8cR1tY6uI3oL5aS0dF7gH2jK9z"
	oai := "sk-proj-Ab3_Cd5-Ef7Gh9Ij1Kl3Mn5Op7Qr9St1Uv3Wx5Yz7Ab9Cd1Ef3G"
	b32 := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString
	hexOf := func(s string) string { return hex.EncodeToString([]byte(s)) }
	for _, tc := range []struct {
		name string
		data string
		want []Hit
	}{
		{"raw", "token=" + gh, []Hit{{"env:GITHUB_TOKEN", "raw"}}},
		{"reversed", "x=" + rev(aws), []Hit{{"env:AWS_SECRET_ACCESS_KEY", "reversed"}}},
		{"broken by dashes", "k=" + strings.Join(chunks(aws, 4), "-"), []Hit{{"env:AWS_SECRET_ACCESS_KEY", "split"}}},
		{"broken by newlines and dots", strings.Join(chunks(gh, 5), ".\n"), []Hit{{"env:GITHUB_TOKEN", "split"}}},
		{"value with dashes, re-broken", strings.Join(chunks(oai, 3), " - "), []Hit{{"env:OPENAI_API_KEY", "split"}}},
		{"hex broken by dashes", strings.Join(chunks(hexOf(aws), 8), "-"), []Hit{{"env:AWS_SECRET_ACCESS_KEY", "hex-split"}}},
		{"prefix and start", "t=" + gh[:4+8] + "…", []Hit{{"env:GITHUB_TOKEN", "prefix"}}},
		{"prefix and start, hex", hexOf(oai[:8+9]), []Hit{{"env:OPENAI_API_KEY", "prefix-hex"}}},
		{"fragment, 16 chars", "id=" + aws[10:26] + "&x=1", []Hit{{"env:AWS_SECRET_ACCESS_KEY", "fragment"}}},
		{"reversed fragment", rev(aws[3:23]), []Hit{{"env:AWS_SECRET_ACCESS_KEY", "reversed-fragment"}}},
		{"truncated hex label", hexOf(gh)[:8+30] + ".x.example", []Hit{{"env:GITHUB_TOKEN", "hex-fragment"}, {"env:GITHUB_TOKEN", "prefix-hex"}}},
		{"hex fragment, upper case", strings.ToUpper(hexOf(aws[20:33])), []Hit{{"env:AWS_SECRET_ACCESS_KEY", "hex-fragment"}}},
		{"base64 fragment", base64.StdEncoding.EncodeToString([]byte(aws[1:21])), []Hit{{"env:AWS_SECRET_ACCESS_KEY", "base64-fragment"}}},
		{"base32 fragment", strings.ToLower(b32([]byte(aws[2:22]))), []Hit{{"env:AWS_SECRET_ACCESS_KEY", "base32-fragment"}}},
		{"password of a connection string", "pw " + "Zx8Cv7Bn6Mq5Wr4Ty3Ui", []Hit{{"env:DATABASE_URL", "fragment"}}},
		{"gzip sniffed", string(gz([]byte("token=" + gh))), []Hit{{"env:GITHUB_TOKEN", "gzip+raw"}}},
		{"zlib sniffed", string(zl([]byte(hexOf(aws)))), []Hit{{"env:AWS_SECRET_ACCESS_KEY", "deflate+hex"}}},
		{"whole and part: only whole", gh + " " + gh[:20], []Hit{{"env:GITHUB_TOKEN", "raw"}}},
		// What is shared with every value of a kind proves nothing.
		{"host of a connection string", "connect db.mcp-audit.test:5432/app failed", nil},
		{"JWT header", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc", nil},
		{"prefix alone", "ghp_ and sk-proj- and AKIA", nil},
		{"15-char fragment", "id=" + aws[10:25], nil},
		{"prefix and 7", gh[:4+7], nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, f.FindString(tc.data)); diff != "" {
				t.Errorf("Find (-want +got):\n%s", diff)
			}
		})
	}
}

func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// TestFindHTTP: a body is decoded per its Content-Encoding (gzip, deflate
// as zlib or bare, br, a chain), or per its magic bytes without one.
func TestFindHTTP(t *testing.T) {
	f := NewFinder(fixedSet())
	// Compressible, so no coding leaves the token as literal bytes.
	gh := []byte(`{"note":"` + strings.Repeat("all is well ", 50) + `","token":"ghp_Q8rTz3VbN6mKx2LpW9sYc4HdJ7fGa1Ue5RoI"}`)
	// A body cut at the sink's bound still yields what decoded before the
	// cut (the decoder hands out its window every 32 KiB).
	big := gz(append(slices.Clone(gh), pseudoRandom(256<<10)...))
	head := []byte("POST /u HTTP/1.1\nContent-Type: application/octet-stream\n")
	for _, tc := range []struct {
		name, ce string
		body     []byte
		want     string
	}{
		{"gzip", "gzip", gz(gh), "gzip+raw"},
		{"x-gzip", "x-gzip", gz(gh), "x-gzip+raw"},
		{"deflate (zlib)", "deflate", zl(gh), "deflate+raw"},
		{"deflate (bare)", "deflate", rawDeflate(gh), "deflate+raw"},
		{"br", "br", br(gh), "br+raw"},
		{"gzip then br", "gzip, br", br(gz(gh)), "gzip+br+raw"},
		{"gzip without header", "", gz(gh), "gzip+raw"},
		{"truncated gzip", "gzip", big[:len(big)/2], "gzip+raw"},
		{"plain (control)", "", gh, "raw"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := []Hit{{"env:GITHUB_TOKEN", tc.want}}
			if diff := cmp.Diff(want, f.FindHTTP(head, tc.body, tc.ce)); diff != "" {
				t.Errorf("FindHTTP (-want +got):\n%s", diff)
			}
		})
	}
}

// TestInflateBounded: a zip bomb expands to at most MaxInflated bytes.
func TestInflateBounded(t *testing.T) {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	io.Copy(w, io.LimitReader(zeros{}, 64<<20))
	w.Close()
	out, coding := Inflate(buf.Bytes(), "gzip")
	if coding != "gzip" || len(out) != MaxInflated {
		t.Errorf("inflated %d bytes (%s) from a %d-byte bomb; want the %d-byte bound", len(out), coding, buf.Len(), MaxInflated)
	}
	if out, coding := Inflate([]byte("plain text"), ""); out != nil || coding != "" {
		t.Errorf("plain text inflated: %q %q", out, coding)
	}
	if out, _ := Inflate([]byte("x\x9cnot zlib at all"), ""); len(out) != 0 {
		t.Errorf("bad zlib inflated: %q", out)
	}
}

// pseudoRandom is n hex digits that do not compress much.
func pseudoRandom(n int) []byte {
	out := make([]byte, 0, n)
	x := uint64(88172645463325252)
	for len(out) < n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		out = append(out, "0123456789abcdef"[x%16])
	}
	return out
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestStream: a value cut across writes (reads of a connection, datagrams,
// DNS queries) is found once, in the write that completes it, and a
// compressed stream is searched whole when it ends.
func TestStream(t *testing.T) {
	f := NewFinder(fixedSet())
	aws := "wJ7kP2xQ9mN4vB8cR1tY6uI3oL5aS0dF7gH2jK9z"
	hx := hex.EncodeToString([]byte(aws))
	s := f.Stream()
	var got [][]Hit
	for _, p := range []string{"HELLO\n", "key=" + aws[:10], aws[10:30], aws[30:] + "\n", "bye " + aws} {
		got = append(got, s.Write([]byte(p)))
	}
	want := [][]Hit{nil, nil, {{"env:AWS_SECRET_ACCESS_KEY", "fragment"}}, {{"env:AWS_SECRET_ACCESS_KEY", "raw"}}, nil}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stream (-want +got):\n%s", diff)
	}
	// DNS labels, 14 hex digits a query (no query alone is a fragment).
	s = f.Stream()
	var all []Hit
	for _, c := range chunks(hx, 14) {
		all = append(all, s.Write([]byte(c))...)
	}
	if diff := cmp.Diff([]Hit{{"env:AWS_SECRET_ACCESS_KEY", "hex-fragment"}, {"env:AWS_SECRET_ACCESS_KEY", "hex"}}, all); diff != "" {
		t.Errorf("joined labels (-want +got):\n%s", diff)
	}
	z := gz([]byte("k=" + aws))
	s = f.Stream()
	all = nil
	for _, c := range chunks(string(z), 7) {
		all = append(all, s.Write([]byte(c))...)
	}
	all = append(all, s.Close()...)
	if diff := cmp.Diff([]Hit{{"env:AWS_SECRET_ACCESS_KEY", "gzip+raw"}}, all); diff != "" {
		t.Errorf("compressed stream (-want +got):\n%s", diff)
	}
}
