package canary

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// FuzzInflateStream: whatever the bytes and coding, decoding is bounded
// and does not panic; a stream of arbitrary pieces holding a canary cut at
// arbitrary points finds it.
func FuzzInflateStream(f *testing.F) {
	tok := []byte("ghp_Q8rTz3VbN6mKx2LpW9sYc4HdJ7fGa1Ue5RoI")
	f.Add(gz(tok), "gzip", uint8(3), uint8(7))
	f.Add(zl(tok), "", uint8(1), uint8(20))
	f.Add(br(tok), "br", uint8(5), uint8(5))
	f.Add(rawDeflate(tok), "deflate", uint8(0), uint8(1))
	f.Add([]byte("x\x9c\x00\x00"), "gzip, br, deflate", uint8(9), uint8(2))
	fd := NewFinder(fixedSet())
	f.Fuzz(func(t *testing.T, data []byte, ce string, cut, piece uint8) {
		out, _ := Inflate(data, ce)
		if len(out) > MaxInflated {
			t.Fatalf("inflated %d bytes, bound %d", len(out), MaxInflated)
		}
		fd.Find(data)
		// The token after the fuzzer's bytes, in pieces of 1..256 bytes
		// starting at an arbitrary cut.
		stream := append(bytes.Clone(data[:min(len(data), 4096)]), tok...)
		s := fd.Stream()
		var hits []Hit
		c := min(int(cut), len(stream))
		hits = append(hits, s.Write(stream[:c])...)
		for p := stream[c:]; len(p) > 0; {
			n := min(len(p), int(piece)+1)
			hits = append(hits, s.Write(p[:n])...)
			p = p[n:]
		}
		hits = append(hits, s.Close()...)
		found := false
		for _, h := range hits {
			found = found || h.Canary == "env:GITHUB_TOKEN" && h.Encoding == "raw"
		}
		if !found {
			t.Errorf("token cut at %d in pieces of %d not found: %v", c, int(piece)+1, hits)
		}
		if len(s.tail) > fd.window {
			t.Errorf("stream kept %d bytes, window %d", len(s.tail), fd.window)
		}
	})
}

// TestFragmentsIgnoreRandomBytes: megabytes of random bytes, hex, base64
// and alphanumerics hold no canary, whole or in part, for fresh sets.
func TestFragmentsIgnoreRandomBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 4 {
		s := Generate([]string{"DATABASE_URL", "SUPABASE_SERVICE_ROLE_KEY", "POSTMARK_SERVER_TOKEN", "SENTRY_DSN", "SLACK_WEBHOOK_URL"})
		f := NewFinder(s.All())
		raw := make([]byte, 2<<20)
		for i := range raw {
			raw[i] = byte(rng.Uint32())
		}
		alnumText := make([]byte, 2<<20)
		for i := range alnumText {
			alnumText[i] = alnum[rng.IntN(len(alnum))]
		}
		for name, data := range map[string][]byte{
			"bytes": raw, "hex": []byte(hex.EncodeToString(raw)), "base64": []byte(base64.StdEncoding.EncodeToString(raw)),
			"alnum": alnumText,
		} {
			if hits := f.Find(data); len(hits) != 0 {
				t.Errorf("%s: %d MiB of random data matched %v", name, len(data)>>20, hits)
			}
		}
	}
}

// TestFragmentsIgnoreServerTraffic: what real servers said (the tool
// lists and manifests of the policy study, real traces, schemas) holds no
// canary in any form. Keys, JWTs and hex ids in it share prefixes and
// headers with canaries; only a canary's random part counts.
func TestFragmentsIgnoreServerTraffic(t *testing.T) {
	var corpus [][]byte
	for _, glob := range []string{"../policy/testdata/*.json", "../policy/testdata/study/*/*/*.json", "../policy/testdata/study/*/*.json",
		"../trace/testdata/*.strace", "../argsynth/testdata/*.json", "../classify/testdata/cases/*"} {
		files, _ := filepath.Glob(glob)
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				corpus = append(corpus, b)
			}
		}
	}
	total := 0
	for _, b := range corpus {
		total += len(b)
	}
	if total < 1<<20 {
		t.Fatalf("corpus of %d bytes: testdata moved?", total)
	}
	for range 8 {
		s := Generate([]string{"DATABASE_URL", "SUPABASE_SERVICE_ROLE_KEY", "POSTMARK_SERVER_TOKEN", "SENTRY_DSN", "HF_TOKEN"})
		f := NewFinder(s.All())
		for i, b := range corpus {
			if hits := f.Find(b); len(hits) != 0 {
				t.Errorf("corpus file %d matched %v", i, hits)
			}
		}
	}
}
