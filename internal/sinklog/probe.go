package sinklog

import (
	"bufio"
	"bytes"
	"encoding/json"
)

// Probe is one request of the listener probe (`mcp-audit sink --probe`,
// run in the sink container after the calls): a TCP socket the server
// listens on, reached on loopback inside the sandbox's network namespace,
// and what answered. The probe writes one JSON object a line on its
// standard output; the host reads them back with ReadProbes.
type Probe struct {
	// Address and Port are where the socket listens, as the kernel lists
	// it (0.0.0.0, ::, 127.0.0.1).
	Address string `json:"address"`
	Port    int    `json:"port"`
	// Request is "banner" (connect, send nothing, read) or "GET <path>".
	Request string `json:"request"`
	Status  int    `json:"status,omitempty"`
	// Headers are the answer's headers, "Name: value", bounded.
	Headers []string `json:"headers,omitempty"`
	// Body is what was read of the answer's body, or of the banner, or of
	// an answer that was not HTTP; bounded.
	Body  []byte `json:"body,omitempty"`
	Error string `json:"error,omitempty"`
}

// Bounds of what the host reads back from the probe (whatever the probe
// wrote: the bytes in it are the server's).
const (
	MaxProbes       = 64
	MaxProbeBody    = 64 << 10
	MaxProbeHeaders = 64
	MaxProbeHeader  = 1024
)

// ReadProbes parses the probe's output. Lines that do not parse are
// counted, not fatal; every field is bounded again on the way in.
func ReadProbes(data []byte) (probes []Probe, malformed int) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 2*MaxProbeBody+(MaxProbeHeaders+4)*MaxProbeHeader)
	for sc.Scan() && len(probes) < MaxProbes {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var p Probe
		if err := json.Unmarshal(line, &p); err != nil || p.Request == "" || p.Port <= 0 || p.Port > 65535 {
			malformed++
			continue
		}
		p.Address, p.Request, p.Error = clip(p.Address, 64), clip(p.Request, 256), clip(p.Error, 256)
		p.Headers = p.Headers[:min(len(p.Headers), MaxProbeHeaders)]
		for i, h := range p.Headers {
			p.Headers[i] = clip(h, MaxProbeHeader)
		}
		p.Body = p.Body[:min(len(p.Body), MaxProbeBody)]
		probes = append(probes, p)
	}
	if sc.Err() != nil {
		malformed++
	}
	return probes, malformed
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
