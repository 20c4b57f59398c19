// Package remotefake is a remote MCP server for tests, written in Go and
// listening on loopback: it answers as an SDK v2 server does (the shapes
// of the captured transcripts under internal/mcpclient/testdata: a
// server/discover result with supportedVersions, resultType and the
// serverInfo in _meta, and the 2025 initialize handshake for a legacy
// client), over Streamable HTTP at /mcp or the 2024-11-05 HTTP+SSE
// transport at /sse, and records every request it gets, so a test can
// show what a surface audit sent (no credential, no call it was not asked
// for). No package code runs: it is this file.
package remotefake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Modes of the fake.
const (
	// Benign offers a documentation search and its ui:// viewer page.
	Benign = "benign"
	// Inject hides instructions for the model in a tool description and
	// in the viewer page.
	Inject = "inject"
)

// Request is one HTTP request the fake received.
type Request struct {
	Method, Path, RawQuery string
	Header                 http.Header
	Body                   string
	// RPC is the JSON-RPC method of a POSTed message.
	RPC string
}

// Server is a running fake.
type Server struct {
	*httptest.Server
	mode string
	mu   sync.Mutex
	reqs []Request
	sse  chan string
}

// Start runs a fake in mode on 127.0.0.1; Close stops it.
func Start(mode string) *Server {
	s := &Server{mode: mode, sse: make(chan string, 64)}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// HTTPURL and SSEURL are the endpoints of the two transports.
func (s *Server) HTTPURL() string { return s.URL + "/mcp" }
func (s *Server) SSEURL() string  { return s.URL + "/sse" }

// Requests are the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Methods are the JSON-RPC methods received, in order.
func (s *Server) Methods() []string {
	var out []string
	for _, r := range s.Requests() {
		if r.RPC != "" {
			out = append(out, r.RPC)
		}
	}
	return out
}

// Received reports whether any request carried text in its path, query,
// headers or body.
func (s *Server) Received(text string) bool {
	for _, r := range s.Requests() {
		if strings.Contains(r.Path+"?"+r.RawQuery+"\n"+r.Body, text) {
			return true
		}
		for k, vs := range r.Header {
			if strings.Contains(k+": "+strings.Join(vs, ","), text) {
				return true
			}
		}
	}
	return false
}

func (s *Server) record(r *http.Request, body []byte) *message {
	var msg message
	_ = json.Unmarshal(body, &msg)
	s.mu.Lock()
	s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: r.Header.Clone(),
		Body: string(body), RPC: msg.Method})
	s.mu.Unlock()
	return &msg
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	msg := s.record(r, body)
	switch {
	case r.URL.Path == "/mcp" && r.Method == http.MethodPost:
		s.streamable(w, msg)
	case r.URL.Path == "/sse" && r.Method == http.MethodGet:
		s.stream(w, r)
	case r.URL.Path == "/messages" && r.Method == http.MethodPost:
		w.WriteHeader(http.StatusAccepted)
		if msg.ID != nil {
			s.sse <- string(s.answer(msg, false))
		}
	default:
		http.Error(w, "not found", http.StatusNotFound)
	}
}

// streamable answers a Streamable HTTP POST with a JSON body.
func (s *Server) streamable(w http.ResponseWriter, msg *message) {
	if msg.ID == nil {
		w.WriteHeader(http.StatusAccepted) // a notification
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(s.answer(msg, true))
}

// stream is the HTTP+SSE event stream: the endpoint first, then every
// answer.
func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, "event: endpoint\ndata: /messages?sessionId=fake-1\n\n")
	w.(http.Flusher).Flush()
	for {
		select {
		case ev := <-s.sse:
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", ev)
			w.(http.Flusher).Flush()
		case <-r.Context().Done():
			return
		}
	}
}

type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta map[string]json.RawMessage `json:"_meta"`
		Name string                     `json:"name"`
		URI  string                     `json:"uri"`
	} `json:"params"`
}
