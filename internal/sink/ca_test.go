package sink

import (
	"crypto/x509"
	"encoding/pem"
	"testing"
)

func TestMintedCertificatesChainToTheRunCA(t *testing.T) {
	certPEM, keyPEM, err := NewCA()
	if err != nil {
		t.Fatal(err)
	}
	m, err := newMinter(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(certPEM)
	for _, tc := range []struct{ name, verifyAs string }{
		{"api.mail.example", "api.mail.example"},
		{"198.18.0.1", "198.18.0.1"},
		{"", "sinkhole.invalid"}, // a client that sent no SNI and no address
	} {
		c, err := m.forName(tc.name)
		if err != nil {
			t.Fatalf("forName(%q): %v", tc.name, err)
		}
		leaf, err := x509.ParseCertificate(c.Certificate[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := leaf.Verify(x509.VerifyOptions{DNSName: tc.verifyAs, Roots: roots}); err != nil {
			t.Errorf("certificate for %q does not verify as %q: %v", tc.name, tc.verifyAs, err)
		}
		again, _ := m.forName(tc.name)
		if again != c {
			t.Errorf("forName(%q) minted twice; want the cached certificate", tc.name)
		}
	}
}

func TestNewMinterRejectsNonPEM(t *testing.T) {
	certPEM, keyPEM, err := NewCA()
	if err != nil {
		t.Fatal(err)
	}
	otherKey := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: []byte("junk")})
	for name, in := range map[string][2][]byte{
		"no PEM":      {[]byte("not pem"), keyPEM},
		"no key":      {certPEM, nil},
		"bad key DER": {certPEM, otherKey},
	} {
		if _, err := newMinter(in[0], in[1]); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
