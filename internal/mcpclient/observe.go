package mcpclient

import "time"

// Channels of an Observation.
const (
	ChanRequest      = "request"      // a request from the server (sampling, elicitation, roots), or an input request of a 2026-07-28 result
	ChanNotification = "notification" // a notification (logging, progress, list_changed, subscription notifications, …)
	ChanError        = "error"        // a JSON-RPC error answer: message and data
	ChanStdout       = "stdout"       // a line that is not JSON-RPC
	ChanOversized    = "oversized"    // a message longer than MaxLine: its head and tail
	ChanTask         = "task"         // a task's state (tasks extension): status, statusMessage, error
	ChanState        = "state"        // the opaque requestState of an input_required result
	ChanTransport    = "transport"    // an event of the transport itself: the HTTP+SSE endpoint event, an unknown event
)

// Sources say which 2026-07-28 mechanism carried an Observation; the
// zero Source is a plain message on the session's stream.
const (
	SourceProbe         = "probe"          // the answer to the modern probe of an auto opening
	SourceInputRequired = "input_required" // an input request embedded in an input_required result
	SourceTask          = "task"           // a task handle, a tasks/get state, or a task's input request
	SourceUnsolicited   = "unsolicited"    // a task handle the client did not ask for (see TaskTrace.Solicited)
	SourceListen        = "listen"         // a notification on a subscriptions/listen stream
	SourceSSE           = "sse"            // an event of the 2024-11-05 HTTP+SSE stream that is not a message
)

// Observation is something the server sent outside a call's result.
type Observation struct {
	Channel string
	// Method is the request's or notification's method, or for an error
	// the method of the call it answered (when known). For an input
	// request it is the embedded request's method; for a task state, the
	// method of the call that created the task.
	Method string
	// Data is the message's params, the error object, the line, or the
	// head and tail of an oversized message joined by a newline.
	Data []byte
	// Size is the message's full length in bytes.
	Size int
	// Source is the mechanism that carried it (Source* or empty).
	Source string
}

// ServerRequest is a request the server sent to the client: a 2025-era
// request on the stream, or an input request of a 2026-07-28 result.
type ServerRequest struct {
	Method string
	Time   time.Time
	// Answer is what the client replied: AnswerRoots, AnswerDeclined,
	// AnswerSampled, "pong" or "unsupported".
	Answer string
	// Source is empty for a request on the stream, else SourceInputRequired
	// or SourceTask.
	Source string
	// URL is the address a URL-mode elicitation asked the client to open
	// (bounded; never opened): client-side egress.
	URL string
}

func (c *Client) observe(o Observation) {
	if c.opts.Observe != nil {
		c.opts.Observe(o)
	}
}

// maxServerRequests bounds the requests kept for ServerRequests.
const maxServerRequests = 1000

func (c *Client) recordRequest(r ServerRequest) {
	c.mu.Lock()
	if len(c.requests) < maxServerRequests {
		c.requests = append(c.requests, r)
	}
	c.mu.Unlock()
}
