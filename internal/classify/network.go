package classify

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/sink"
	"github.com/mcp-audit/mcp-audit/internal/trace"
)

// Evidence is one network exchange in full, for the evidence file next to
// the manifest. Secret-looking header values are masked and canary values
// redacted.
type Evidence struct {
	Phase     string      `json:"phase"`
	Time      string      `json:"time"`
	Kind      string      `json:"kind"` // http, tcp, udp
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

var fakeNet = func() *net.IPNet { _, n, _ := net.ParseCIDR(sink.FakeNet); return n }()

func isFake(ip string) bool {
	p := net.ParseIP(ip)
	return p != nil && fakeNet.Contains(p)
}

// traceConn is a TCP connect from the trace, waiting to be matched with
// what the sink saw of it.
type traceConn struct {
	conn    m.Connection
	ip      string
	port    int
	t       time.Time
	seq     int
	phase   *phaseAcc
	matched bool
}

func sinkTime(f float64) time.Time {
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9))
}

// namesFromSink maps addresses to the names they were answered for.
func (c *classifier) namesFromSink() {
	for _, e := range c.in.Sink {
		if e.Kind != "dns" {
			continue
		}
		for _, a := range e.Answer {
			if _, ok := c.names[a]; !ok && e.Name != "" {
				c.names[a] = e.Name
			}
		}
	}
}

// process returns the program a pid was running, normalized.
func (c *classifier) processOf(pid int) string {
	return c.procs[pid]
}

func (c *classifier) setProcess(pid int, argv []string) {
	l := c.in.Layout
	parts := make([]string, 0, len(argv))
	for i, a := range argv {
		if i == 8 {
			parts = append(parts, "…")
			break
		}
		if c.in.Canaries != nil {
			a = c.in.Canaries.Redact(a)
		}
		if strings.HasPrefix(a, "/") {
			a = l.Normalize(a)
		}
		if len(a) > 80 {
			a = a[:80] + "…"
		}
		parts = append(parts, a)
	}
	c.procs[pid] = strings.Join(parts, " ")
}

// mergeSink folds the sink's log into the phases: DNS questions only the
// sink saw, what each TCP connection carried, HTTP requests, UDP payloads.
func (c *classifier) mergeSink() {
	evs := slices.Clone(c.in.Sink)
	slices.SortStableFunc(evs, func(a, b sink.Event) int {
		switch {
		case a.Time < b.Time:
			return -1
		case a.Time > b.Time:
			return 1
		}
		return 0
	})
	byID := map[int]*traceConn{}
	sinkConn := map[int]sink.Event{}
	for _, e := range evs {
		t := sinkTime(e.Time)
		p := c.phaseAt(t)
		switch e.Kind {
		case "dns":
			if e.Name == "" {
				continue
			}
			seen := false
			for _, ph := range c.phases {
				for _, d := range ph.DNS {
					seen = seen || d.Name == e.Name && d.Type == e.QType
				}
			}
			if !seen {
				p.DNS = append(p.DNS, m.DNSQuery{Name: e.Name, Type: e.QType})
			}
			c.canaryScan(p, []byte(strings.ReplaceAll(e.Name, ".", "")), "dns "+e.Name)
			c.canaryScan(p, []byte(e.Name), "dns "+e.Name)
		case "tcp":
			sinkConn[e.ID] = e
			tc := c.matchConn(e, t)
			if tc == nil {
				// The sink saw a connection the tracer did not.
				conn := m.Connection{Proto: "tcp", Op: "connect", Name: e.Name, Port: e.Port, Result: m.ResultOK, Category: "egress"}
				if !isFake(e.DstIP) {
					conn.Address = e.DstIP
				}
				tc = &traceConn{conn: conn, phase: p, matched: true}
				c.tcp = append(c.tcp, tc)
				if !c.in.TraceTruncated {
					p.Alerts = append(p.Alerts, m.Alert{Kind: m.AlertUntracedNetwork,
						Detail: fmt.Sprintf("the sink saw a connection to %s:%d with no traced connect", orStr(e.Name, conn.Address), e.Port)})
				}
			}
			tc.conn.Protocol, tc.conn.SNI, tc.conn.TLS = e.Proto, e.SNI, e.TLS
			tc.conn.ALPN = strings.Join(e.ALPN, ",")
			byID[e.ID] = tc
			if len(e.First) > 0 {
				ev := fmt.Sprintf("tcp %s:%d", orStr(e.Name, e.DstIP), e.Port)
				c.canaryScan(tc.phase, e.First, ev)
				c.evidence = append(c.evidence, c.rawEvidence(tc, "tcp", e.First, t))
			}
		case "http":
			tc := byID[e.ID]
			conn := sinkConn[e.ID]
			for _, r := range e.Requests {
				c.request(p, tc, conn, r, t)
			}
		case "udp":
			c.udp(p, e, t)
		}
	}
	for _, tc := range c.tcp {
		tc.phase.Network = append(tc.phase.Network, tc.conn)
	}
}

func orStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// matchConn pairs a sink connection with the earliest unmatched traced
// connect to the same address and port that started before it.
func (c *classifier) matchConn(e sink.Event, t time.Time) *traceConn {
	var best *traceConn
	for _, tc := range c.tcp {
		if tc.matched || tc.ip != e.DstIP || tc.port != e.Port || tc.t.After(t.Add(time.Second)) {
			continue
		}
		if best == nil || tc.t.Before(best.t) {
			best = tc
		}
	}
	if best != nil {
		best.matched = true
	}
	return best
}

func (c *classifier) request(p *phaseAcc, tc *traceConn, conn sink.Event, r sink.HTTPRequest, t time.Time) {
	scheme := "http"
	if conn.Proto == "tls" {
		scheme = "https"
	}
	req := m.Request{Scheme: scheme, Name: conn.Name, Port: conn.Port, Method: r.Method, Host: strings.ToLower(r.Host)}
	if tc != nil {
		req.Process = tc.conn.Process
	}
	u, err := url.ParseRequestURI(r.Target)
	if err == nil {
		req.Path = normalizeURLPath(u.EscapedPath())
		for k := range u.Query() {
			req.QueryKeys = appendBounded(req.QueryKeys, k, 50)
		}
	} else {
		req.Path = "<unparsable>"
	}
	for _, h := range r.Headers {
		req.HeaderNames = appendBounded(req.HeaderNames, strings.ToLower(h[0]), 60)
	}
	var ctype string
	for _, h := range r.Headers {
		if strings.EqualFold(h[0], "Content-Type") {
			ctype = strings.ToLower(h[1])
		}
	}
	texts := []string{r.Target}
	req.BodyFields, texts = bodyFields(r.Body, ctype, texts)
	for _, s := range texts {
		for _, e := range reEmail.FindAllString(s, 50) {
			req.Emails = appendBounded(req.Emails, strings.ToLower(e), 50)
		}
		for _, h := range reHost.FindAllString(reEmail.ReplaceAllString(s, " "), 100) {
			h = strings.ToLower(h)
			if !codeExt[h[strings.LastIndex(h, ".")+1:]] {
				req.Hosts = appendBounded(req.Hosts, h, 50)
			}
		}
	}
	p.Requests = append(p.Requests, req)
	where := fmt.Sprintf("%s %s %s%s", scheme, r.Method, orStr(req.Host, conn.Name), req.Path)
	var all bytes.Buffer
	all.WriteString(r.Target + "\n")
	for _, h := range r.Headers {
		all.WriteString(h[0] + ": " + h[1] + "\n")
	}
	all.Write(r.Body)
	hits := c.finder.Find(all.Bytes())
	for _, h := range hits {
		p.Canaries = append(p.Canaries, m.CanaryHit{Canary: h.Canary, How: "sent", Evidence: where, Encoding: h.Encoding})
	}
	ev := Evidence{Phase: p.Name, Time: t.UTC().Format(time.RFC3339Nano), Kind: "http", Name: conn.Name, Port: conn.Port,
		SNI: conn.SNI, Method: r.Method, URL: c.redact(scheme + "://" + orStr(r.Host, conn.Name) + r.Target),
		BodyLen: r.BodyLen, Truncated: r.Truncated}
	if tc != nil {
		ev.Process, ev.TraceLine = tc.conn.Process, tc.seq
	}
	for _, h := range r.Headers {
		ev.Headers = append(ev.Headers, [2]string{h[0], c.maskHeader(h[0], h[1])})
	}
	ev.Body, ev.Encoding = c.encodeBody(r.Body)
	for _, h := range hits {
		ev.Canaries = append(ev.Canaries, h.Canary+" ("+h.Encoding+")")
	}
	c.evidence = append(c.evidence, ev)
}

func (c *classifier) udp(p *phaseAcc, e sink.Event, t time.Time) {
	// The destination of a redirected datagram is only in the trace: find
	// the traced send carrying the same bytes.
	where := "udp datagram (destination not traced)"
	for _, s := range c.udpSends {
		if len(s.data) > 0 && bytes.HasPrefix(e.Data, s.data[:min(len(s.data), len(e.Data))]) {
			where = s.where
			break
		}
	}
	for _, h := range c.finder.Find(e.Data) {
		p.Canaries = append(p.Canaries, m.CanaryHit{Canary: h.Canary, How: "sent", Evidence: where, Encoding: h.Encoding})
	}
	body, enc := c.encodeBody(e.Data)
	c.evidence = append(c.evidence, Evidence{Phase: p.Name, Time: t.UTC().Format(time.RFC3339Nano), Kind: "udp",
		Address: strings.TrimPrefix(where, "udp "), Body: body, Encoding: enc, BodyLen: int64(e.Length)})
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

var (
	reEmail = regexp.MustCompile(`[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,24}`)
	reHost  = regexp.MustCompile(`(?i)\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}\b`)
	codeExt = map[string]bool{"js": true, "ts": true, "json": true, "md": true, "txt": true, "py": true, "go": true,
		"html": true, "htm": true, "css": true, "png": true, "jpg": true, "jpeg": true, "gif": true, "svg": true,
		"yml": true, "yaml": true, "xml": true, "sh": true, "mjs": true, "cjs": true, "map": true, "lock": true,
		"toml": true, "csv": true, "pdf": true, "zip": true, "gz": true, "tgz": true, "tar": true, "exe": true}
	reVolatileSeg = regexp.MustCompile(`^(?:[0-9]+|[0-9a-fA-F]{16,}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$`)
)

// normalizeURLPath replaces ids (numbers, long hex, UUIDs) in path
// segments with *, so request records do not change with every call.
func normalizeURLPath(p string) string {
	if p == "" {
		return "/"
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if reVolatileSeg.MatchString(s) {
			segs[i] = "*"
		}
	}
	out := strings.Join(segs, "/")
	if len(out) > 512 {
		out = out[:512] + "…"
	}
	return out
}

func appendBounded(s []string, v string, max int) []string {
	if len(s) >= max || slices.Contains(s, v) {
		return s
	}
	if len(v) > 200 {
		v = v[:200]
	}
	return append(s, v)
}

// bodyFields lists the field names of a JSON or form body and returns the
// texts to search for addresses (the decoded strings of a JSON body).
func bodyFields(body []byte, ctype string, texts []string) ([]string, []string) {
	var fields []string
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '['):
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) == nil {
			walkJSON(v, "", 0, &fields, &texts)
			sort.Strings(fields)
			return fields, texts
		}
	case strings.Contains(ctype, "x-www-form-urlencoded"):
		if q, err := url.ParseQuery(string(body)); err == nil {
			for k, vs := range q {
				fields = appendBounded(fields, k, 200)
				texts = append(texts, vs...)
			}
			sort.Strings(fields)
			return fields, texts
		}
	}
	if utf8.Valid(body) {
		texts = append(texts, string(body))
	}
	return fields, texts
}

func walkJSON(v any, prefix string, depth int, fields, texts *[]string) {
	if depth > 8 || len(*fields) >= 200 {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			name := k
			if prefix != "" {
				name = prefix + "." + k
			}
			*fields = appendBounded(*fields, name, 200)
			walkJSON(val, name, depth+1, fields, texts)
		}
	case []any:
		for _, val := range x {
			walkJSON(val, prefix+"[]", depth+1, fields, texts)
		}
	case string:
		if len(*texts) < 1000 {
			*texts = append(*texts, x)
		}
	}
}

// udpSend is a traced datagram, for finding the destination of what the
// sink received.
type udpSend struct {
	data  []byte
	where string
}

// noteUDP remembers a traced UDP send.
func (c *classifier) noteUDP(r trace.Record, where string) {
	for _, d := range r.Data {
		if len(c.udpSends) < 10000 {
			c.udpSends = append(c.udpSends, udpSend{data: d, where: where})
		}
	}
}
