package classify

import (
	"encoding/base64"
	"regexp"
	"time"
	"unicode/utf8"
)

// Evidence is one network exchange in full, for the evidence file next to
// the manifest. Secret-looking header values are masked and canary values
// redacted.
type Evidence struct {
	Phase     string      `json:"phase"`
	Time      string      `json:"time"`
	Kind      string      `json:"kind"` // http, tcp, udp, or a service fake: postgres, mysql, redis, smtp
	Name      string      `json:"name,omitempty"`
	Address   string      `json:"address,omitempty"`
	Port      int         `json:"port,omitempty"`
	Process   string      `json:"process,omitempty"`
	TraceLine int         `json:"trace_line,omitempty"` // the connect in the raw trace
	SNI       string      `json:"sni,omitempty"`
	Method    string      `json:"method,omitempty"`
	URL       string      `json:"url,omitempty"`
	Headers   [][2]string `json:"headers,omitempty"`
	Body      string      `json:"body,omitempty"`
	Encoding  string      `json:"encoding,omitempty"` // text or base64
	BodyLen   int64       `json:"body_len,omitempty"`
	Truncated bool        `json:"truncated,omitempty"`
	Canaries  []string    `json:"canaries,omitempty"`
}

func (c *classifier) rawEvidence(tc *traceConn, kind string, data []byte, t time.Time) Evidence {
	body, enc := c.encodeBody(data)
	return Evidence{Phase: tc.phase.Name, Time: t.UTC().Format(time.RFC3339Nano), Kind: kind, Name: tc.conn.Name,
		Address: tc.conn.Address, Port: tc.conn.Port, Process: tc.conn.Process, TraceLine: tc.seq, SNI: tc.conn.SNI,
		Body: body, Encoding: enc, BodyLen: int64(len(data))}
}

func (c *classifier) redact(s string) string {
	if c.in.Canaries == nil {
		return s
	}
	return c.in.Canaries.Redact(s)
}

func (c *classifier) encodeBody(b []byte) (string, string) {
	if len(b) == 0 {
		return "", ""
	}
	if utf8.Valid(b) {
		return c.redact(string(b)), "text"
	}
	return base64.StdEncoding.EncodeToString([]byte(c.redact(string(b)))), "base64"
}

var secretHeader = regexp.MustCompile(`(?i)auth|token|secret|key|cookie|password|passwd|session|signature|credential`)

// maskHeader hides secret-looking header values, but names a canary when
// the value is one: that is the evidence.
func (c *classifier) maskHeader(name, value string) string {
	if hits := c.finder.FindString(value); len(hits) > 0 {
		return c.redact(value)
	}
	if secretHeader.MatchString(name) {
		return "<masked>"
	}
	return value
}
