package sink

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"sync"
	"time"
)

// validity is how long the leaves stay valid. The server's clock runs
// fast in idle and jumps years ahead (the clock shim: 200x for a run of up
// to 15 minutes is about 50 hours, plus up to 5 years), so TLS must still
// validate at the server's latest time; the CA is valid longer still.
const validity = 6 * 365 * 24 * time.Hour

// NewCA creates a per-run certificate authority (valid for years, as a
// corporate root is; its leaves for validity). The
// sandbox trusts the certificate; the key stays in the sink container.
func NewCA() (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		// What a corporate TLS proxy's root looks like on a user's
		// machine: nothing names the audit, and it is not a day old.
		Subject:               pkix.Name{CommonName: "Corporate Root CA", Organization: []string{"IT Security"}},
		NotBefore:             time.Now().AddDate(-1, 0, 0),
		NotAfter:              time.Now().AddDate(9, 0, 0),
		IsCA:                  true,
		BasicConstraintsValid: true,
		MaxPathLenZero:        true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), nil
}

// certMinter issues leaf certificates per name, signed by the run's CA.
type certMinter struct {
	ca    *x509.Certificate
	caKey *ecdsa.PrivateKey
	leaf  *ecdsa.PrivateKey
	mu    sync.Mutex
	cache map[string]*tls.Certificate
}

func loadMinter(certFile, keyFile string) (*certMinter, error) {
	cb, err := os.ReadFile(certFile)
	if err != nil {
		return nil, fmt.Errorf("reading CA: %w", err)
	}
	kb, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("reading CA key: %w", err)
	}
	return newMinter(cb, kb)
}

func newMinter(certPEM, keyPEM []byte) (*certMinter, error) {
	cblock, _ := pem.Decode(certPEM)
	kblock, _ := pem.Decode(keyPEM)
	if cblock == nil || kblock == nil {
		return nil, errors.New("CA certificate or key is not PEM")
	}
	ca, err := x509.ParseCertificate(cblock.Bytes)
	if err != nil {
		return nil, err
	}
	key, err := x509.ParseECPrivateKey(kblock.Bytes)
	if err != nil {
		return nil, err
	}
	leaf, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return &certMinter{ca: ca, caKey: key, leaf: leaf, cache: map[string]*tls.Certificate{}}, nil
}

func (m *certMinter) forName(name string) (*tls.Certificate, error) {
	if name == "" {
		name = "sinkhole.invalid"
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.cache[name]; ok {
		return c, nil
	}
	if len(m.cache) > 4096 {
		m.cache = map[string]*tls.Certificate{}
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(validity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if ip := net.ParseIP(name); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{name}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, m.ca, &m.leaf.PublicKey, m.caKey)
	if err != nil {
		return nil, err
	}
	c := &tls.Certificate{Certificate: [][]byte{der, m.ca.Raw}, PrivateKey: m.leaf}
	m.cache[name] = c
	return c, nil
}
