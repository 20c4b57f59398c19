// Package variant chooses what each run of an audit varies, so that the
// runs differ in exactly what a thief takes or keys on: the planted
// secrets, and what is cheap to fingerprint (host name, user, home,
// machine id, the sinkhole's address range, the client, launch history,
// the clock). Every choice is a function of the package version and a
// per-installation secret: repeated audits on one installation give
// byte-identical manifests, while no package can compute what it will be
// given from this open-source code.
package variant

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// EnvSecret names the variable that supplies the installation secret (a
// CI secret, so that a project's runners share one).
const EnvSecret = "MCP_AUDIT_SECRET"

// secretFile is the installation secret's file in the cache directory.
const secretFile = "installation-secret"

// Secret is the installation's secret.
type Secret []byte

// LoadSecret reads the installation secret: the EnvSecret variable when
// set, else the cache directory's file, created on first use (32 random
// bytes, readable by the user only).
func LoadSecret(cacheDir string, getenv func(string) string) (Secret, error) {
	if getenv != nil {
		if v := strings.TrimSpace(getenv(EnvSecret)); v != "" {
			return Secret(v), nil
		}
	}
	p := filepath.Join(cacheDir, secretFile)
	b, err := os.ReadFile(p)
	if err == nil && len(b) >= 16 {
		return Secret(b), nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading the installation secret: %w", err)
	}
	b = make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cacheDir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the installation secret: %w", err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return LoadSecret(cacheDir, nil) // another process made it first
	}
	if err != nil {
		return nil, fmt.Errorf("creating the installation secret: %w", err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		return nil, fmt.Errorf("creating the installation secret: %w", err)
	}
	return Secret(b), nil
}

// mac is HMAC-SHA256 of the parts under the secret.
func (s Secret) mac(parts ...string) []byte {
	h := hmac.New(sha256.New, s)
	h.Write([]byte(strings.Join(parts, "\x00")))
	return h.Sum(nil)
}

// Seed is a seed string for the parts (hex), as other packages' choices
// take one (canary.Choice.Seed).
func (s Secret) Seed(parts ...string) string { return hex.EncodeToString(s.mac(parts...)[:16]) }

// Pick is an index below n for the parts.
func (s Secret) Pick(n int, parts ...string) int {
	if n <= 1 {
		return 0
	}
	return int(binary.BigEndian.Uint64(s.mac(parts...)[:8]) % uint64(n))
}
