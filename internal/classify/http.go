package classify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// request records an HTTP request the sink decoded: its shape for the
// manifest, the canary values it carried, and the request in full for the
// evidence file.
func (c *classifier) request(p *phaseAcc, tc *traceConn, conn sinklog.Event, r sinklog.HTTPRequest, t time.Time) {
	req := requestShape(conn, r)
	// Names are the server's to choose: a key, a header or a path segment
	// can be a planted value ({"<secret>": true}), which the manifest
	// never carries.
	if c.in.Canaries != nil {
		redact := func(ss []string) {
			for i, x := range ss {
				ss[i] = c.in.Canaries.Redact(x)
			}
		}
		req.Path, req.Host = c.in.Canaries.Redact(req.Path), c.in.Canaries.Redact(req.Host)
		redact(req.QueryKeys)
		redact(req.HeaderNames)
		redact(req.BodyFields)
		redact(req.Emails)
		redact(req.Hosts)
	}
	req.AfterAnswer = p.afterAnswer(t)
	if tc != nil {
		req.Process = tc.conn.Process
	}
	p.Requests = append(p.Requests, req)
	where := fmt.Sprintf("%s %s %s%s", req.Scheme, r.Method, orStr(req.Host, conn.Name), req.Path)
	var head bytes.Buffer
	var coding string
	head.WriteString(r.Target + "\n")
	for _, h := range r.Headers {
		head.WriteString(h[0] + ": " + h[1] + "\n")
		if strings.EqualFold(h[0], "Content-Encoding") {
			coding = h[1]
		}
	}
	// The body as sent, and decoded per its Content-Encoding (or its
	// magic bytes): a compressed body hides nothing.
	hits := c.finder.FindHTTP(head.Bytes(), r.Body, coding)
	for _, h := range hits {
		p.Canaries = append(p.Canaries, m.CanaryHit{Canary: h.Canary, How: m.HowSent, Evidence: where, Encoding: h.Encoding})
	}
	ev := Evidence{Phase: p.Name, Time: t.UTC().Format(time.RFC3339Nano), Kind: "http", Name: conn.Name, Port: conn.Port,
		SNI: conn.SNI, Method: r.Method, URL: c.redact(req.Scheme + "://" + orStr(r.Host, conn.Name) + r.Target),
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

// requestShape is what the manifest keeps of a request: the normalized
// path, the names of query keys, headers and body fields, and the hosts
// and e-mail addresses named anywhere in it. Values stay out, so the
// manifest is stable across runs.
func requestShape(conn sinklog.Event, r sinklog.HTTPRequest) m.Request {
	scheme := "http"
	if conn.Proto == "tls" {
		scheme = "https"
	}
	req := m.Request{Scheme: scheme, Name: conn.Name, Port: conn.Port, Method: r.Method, Host: strings.ToLower(r.Host)}
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
	return req
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
