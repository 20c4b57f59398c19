package sink

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/sinklog"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

var httpMethods = []string{"GET ", "POST ", "PUT ", "PATCH ", "DELETE ", "HEAD ", "OPTIONS ", "CONNECT ", "TRACE "}

func looksHTTP(b []byte) bool {
	for _, m := range httpMethods {
		if len(b) >= len(m) && string(b[:len(m)]) == m {
			return true
		}
		if len(b) < len(m) && strings.HasPrefix(m, string(b)) && len(b) >= 3 {
			return true
		}
	}
	return false
}

// serveHTTP reads requests on one connection and answers each with the
// canned response for its host or one shaped from the request.
func (s *Sink) serveHTTP(id int, conn sinklog.Event, c net.Conn, r *bufio.Reader) {
	for i := 0; i < 100; i++ {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		req, err := http.ReadRequest(r)
		if err != nil {
			return
		}
		rec := sinklog.HTTPRequest{Method: textsafe.Valid(req.Method, 16), Target: textsafe.Valid(req.RequestURI, 8192),
			Host: textsafe.Valid(req.Host, 253), Proto: textsafe.Valid(req.Proto, 16)}
		keys := make([]string, 0, len(req.Header))
		for k := range req.Header {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			for _, v := range req.Header[k] {
				if len(rec.Headers) < 100 {
					rec.Headers = append(rec.Headers, [2]string{textsafe.Valid(k, 256), textsafe.Valid(v, 4096)})
				}
			}
		}
		body, _ := io.ReadAll(io.LimitReader(req.Body, s.cfg.MaxBody+1))
		h := sha256.New()
		h.Write(body)
		rest, _ := io.Copy(h, io.LimitReader(req.Body, 64<<20))
		rec.BodyLen = int64(len(body)) + rest
		if int64(len(body)) > s.cfg.MaxBody {
			body, rec.Truncated = body[:s.cfg.MaxBody], true
			rec.BodySHA256 = hex.EncodeToString(h.Sum(nil))
		}
		rec.Body = body
		resp := s.response(req, body, conn)
		rec.Status = resp.Status
		s.log.Emit(sinklog.Event{Kind: sinklog.KindHTTP, ID: id, Name: conn.Name, DstIP: conn.DstIP, Port: conn.Port, SNI: conn.SNI,
			Requests: []sinklog.HTTPRequest{rec}})
		payload := resp.Body
		if req.Method == http.MethodHead {
			payload = "" // the length is the GET's, the body never sent
		}
		fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: keep-alive\r\n\r\n%s",
			resp.Status, http.StatusText(resp.Status), resp.ContentType, len(resp.Body), payload)
		if req.Close {
			return
		}
	}
}

// response is the canned answer configured for the request's host (its
// Host header, SNI, looked-up name, then "*"), else one shaped from the
// request.
func (s *Sink) response(req *http.Request, body []byte, conn sinklog.Event) sinklog.Response {
	if r, ok := s.canned(req.Host, conn); ok {
		return r
	}
	return shapeResponse(req, body, s.cfg.Fields)
}

func (s *Sink) canned(host string, conn sinklog.Event) (sinklog.Response, bool) {
	h := host
	if i := strings.LastIndex(h, ":"); i > 0 && !strings.Contains(h[i:], "]") {
		h = h[:i]
	}
	for _, k := range []string{strings.ToLower(h), strings.ToLower(conn.SNI), strings.ToLower(conn.Name), "*"} {
		if r, ok := s.cfg.Responses[k]; ok && k != "" {
			if r.Status == 0 {
				r.Status = 200
			}
			if r.ContentType == "" {
				r.ContentType = "application/json"
			}
			return r, true
		}
	}
	return sinklog.Response{}, false
}
