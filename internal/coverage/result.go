package coverage

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Result is what a call's answer says of itself: its content types, and
// whether it reports a failure.
type Result struct {
	// Content are the content types of the answer (text, image, blob, …),
	// sorted, at most 10.
	Content []string
	// Failed: the answer sets isError, or its first text opens as a
	// failure report (many servers answer a failure with a text and no
	// isError); First is that text's first line.
	Failed bool
	First  string
	// Text is the first text item of a failed answer in full, bounded
	// (8 KiB): the message a corrected retry reads.
	Text string
}

// errorOpening are how servers begin a result that reports a failure
// without setting isError.
var errorOpening = []string{"error:", "error ", "failed to ", "failed:", "exception:", "traceback (most recent call last)",
	"an error occurred", "unable to ", "cannot ", "could not ", "invalid "}

// ReadResult reads a tools/call, prompts/get or resources/read answer
// (hostile input: a malformed one says nothing).
func ReadResult(raw []byte) Result {
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Messages []struct {
			Content struct {
				Type string `json:"type"`
			} `json:"content"`
		} `json:"messages"`
		Contents []struct {
			Text *string `json:"text"`
			Blob *string `json:"blob"`
		} `json:"contents"`
	}
	var out Result
	if json.Unmarshal(raw, &res) != nil {
		return out
	}
	add := func(t string) {
		t = textsafe.Text(t, 40)
		if !slices.Contains(out.Content, t) && len(out.Content) < 10 {
			out.Content = append(out.Content, t)
		}
	}
	for _, c := range res.Content {
		add(c.Type)
	}
	for _, msg := range res.Messages {
		add(msg.Content.Type)
	}
	for _, c := range res.Contents {
		if c.Text != nil {
			add("text")
		}
		if c.Blob != nil {
			add("blob")
		}
	}
	slices.Sort(out.Content)
	first := ""
	for _, c := range res.Content {
		if c.Type == "text" && strings.TrimSpace(c.Text) != "" {
			first = c.Text
			break
		}
	}
	t := strings.ToLower(strings.TrimSpace(first))
	out.Failed = res.IsError || slices.ContainsFunc(errorOpening, func(p string) bool { return strings.HasPrefix(t, p) })
	if out.Failed {
		out.First, out.Text = firstLine(first), textsafe.Valid(first, 8<<10)
	}
	return out
}

// firstLine is text's first non-empty line; a Markdown heading ("###
// Error", as @playwright/mcp opens its failures) with the line under it,
// which says what failed.
func firstLine(text string) string {
	head := ""
	for _, l := range strings.Split(text, "\n") {
		switch l = strings.TrimSpace(l); {
		case l == "":
		case head != "":
			return head + " " + l
		case strings.HasPrefix(l, "#"):
			head = l
		default:
			return l
		}
	}
	return head
}
