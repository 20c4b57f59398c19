package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/sinklog"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// The audit command's flags that carry small languages of their own.

// splitCommand splits a command line like a POSIX shell would for plain
// words, single and double quotes, and backslash escapes.
func splitCommand(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' && i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("%w: unterminated quote in command %q", verdict.ErrUsage, s)
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

// parseToolArgs reads --tool-args NAME=JSON flags.
func parseToolArgs(specs []string) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	for _, s := range specs {
		name, js, ok := strings.Cut(s, "=")
		if !ok || name == "" || !json.Valid([]byte(js)) || !strings.HasPrefix(strings.TrimSpace(js), "{") {
			return nil, fmt.Errorf("%w: --tool-args wants NAME={json object}, got %q", verdict.ErrUsage, s)
		}
		out[name] = json.RawMessage(js)
	}
	return out, nil
}

// parseResponses reads --http-response HOST=STATUS[:FILE] flags.
func parseResponses(specs []string) (map[string]sinklog.Response, error) {
	out := map[string]sinklog.Response{}
	for _, s := range specs {
		host, rest, ok := strings.Cut(s, "=")
		if !ok || host == "" {
			return nil, fmt.Errorf("%w: --http-response wants HOST=STATUS[:BODYFILE], got %q", verdict.ErrUsage, s)
		}
		status, file, _ := strings.Cut(rest, ":")
		code, err := strconv.Atoi(status)
		if err != nil || code < 100 || code > 599 {
			return nil, fmt.Errorf("%w: --http-response: bad status %q", verdict.ErrUsage, status)
		}
		r := sinklog.Response{Status: code, ContentType: "application/json", Body: "{}"}
		if file != "" {
			b, err := os.ReadFile(file)
			if err != nil {
				return nil, fmt.Errorf("%w: --http-response: %v", verdict.ErrUsage, err)
			}
			r.Body = string(b)
			if !json.Valid(b) {
				r.ContentType = "text/plain"
			}
		}
		out[strings.ToLower(host)] = r
	}
	return out, nil
}
