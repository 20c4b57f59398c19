package manifest

import (
	"cmp"
	"slices"
	"strings"
)

// What a phase did to the user's files and what its listening sockets
// serve: effects judged by what they do, whatever the tool says it does.

// How a pre-existing file was destroyed (DestroyedFile.How).
const (
	// DestroyDeleted is a file removed.
	DestroyDeleted = "deleted"
	// DestroyTruncated is a file cut to nothing.
	DestroyTruncated = "truncated"
	// DestroyReplaced is a file whose content was rewritten (not merely
	// appended to), or that another file was renamed onto.
	DestroyReplaced = "replaced"
	// DestroyMoved is a file renamed away: its name no longer holds it.
	DestroyMoved = "moved"
)

// DestroyedFile is a file that existed before the run, in the home or the
// workspace, whose content a phase destroyed.
type DestroyedFile struct {
	Path string `json:"path"`
	How  string `json:"how"`
	// Target is where a moved file went, or the file renamed onto it.
	Target string `json:"target,omitempty"`
	// HighEntropy marks readable content replaced by bytes that look
	// random (encrypted or random data): in the file itself, read back
	// after the run, or in the file written in its place (Written).
	HighEntropy bool `json:"high_entropy,omitempty"`
	// Written is the file read back that holds those bytes when it is not
	// Path (README.md.enc beside a deleted README.md).
	Written string `json:"written,omitempty"`
}

// ProbeOrigin is the Origin header the listener probe sends: a web page
// the user did not mean to trust. An answer that allows it (reflected) or
// any origin lets every page the user opens read what the socket serves.
const ProbeOrigin = "https://evil.example"

// Probe requests (ListenerProbe.Request) besides "GET <path>".
const (
	// ProbeBanner is a connection that sends nothing and reads what the
	// server says first.
	ProbeBanner = "banner"
)

// ListenerProbe is one request the audit made, after the calls, of a TCP
// socket the server listened on, from inside the sandbox's network
// namespace (on loopback), and what answered.
type ListenerProbe struct {
	// Address and Port are where the socket listens (0.0.0.0, ::,
	// 127.0.0.1); it was reached on loopback.
	Address string `json:"address"`
	Port    int    `json:"port"`
	// Request is ProbeBanner or "GET <path>", sent with Origin:
	// ProbeOrigin.
	Request string `json:"request"`
	// Status is the HTTP status of the answer; 0 for a banner or an
	// answer that was not HTTP.
	Status int `json:"status,omitempty"`
	// Headers are the answer's headers that matter ("Name: value": CORS,
	// content type, server, location, authentication), sanitized, bounded,
	// canary values redacted.
	Headers []string `json:"headers,omitempty"`
	// Bytes is how many bytes of the answer's body (or banner) were read,
	// bounded; Digest is their sha256; Excerpt their beginning,
	// sanitized, canary values redacted.
	Bytes   int    `json:"bytes"`
	Digest  string `json:"digest,omitempty"`
	Excerpt string `json:"excerpt,omitempty"`
	// Error says why nothing, or not everything, was read (refused,
	// timeout, closed, not-http, truncated).
	Error string `json:"error,omitempty"`
}

// canonicalEffects sorts a phase's destroyed files and probes; both stay
// nil when empty, so manifests without them keep their bytes.
func canonicalEffects(p *Phase) {
	if len(p.Destroyed) > 0 {
		p.Destroyed = sortedUnique(p.Destroyed, func(a, b DestroyedFile) int {
			return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.How, b.How), strings.Compare(a.Target, b.Target),
				boolCmp(a.HighEntropy, b.HighEntropy), strings.Compare(a.Written, b.Written))
		})
	}
	if len(p.Probes) > 0 {
		p.Probes = slices.Clone(p.Probes)
		for i := range p.Probes {
			p.Probes[i].Headers = sortedUnique(p.Probes[i].Headers, strings.Compare)
			if len(p.Probes[i].Headers) == 0 {
				p.Probes[i].Headers = nil
			}
		}
		p.Probes = sortedUnique(p.Probes, func(a, b ListenerProbe) int {
			return cmp.Or(cmp.Compare(a.Port, b.Port), strings.Compare(a.Address, b.Address), strings.Compare(a.Request, b.Request),
				cmp.Compare(a.Status, b.Status), slices.Compare(a.Headers, b.Headers), cmp.Compare(a.Bytes, b.Bytes),
				strings.Compare(a.Digest, b.Digest), strings.Compare(a.Excerpt, b.Excerpt), strings.Compare(a.Error, b.Error))
		})
	}
}
