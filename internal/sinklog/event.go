// Package sinklog is the network sink's wire format: the configuration the
// host hands the sink, and the JSON-lines event log the sink writes and the
// host reads back as untrusted input (see Read). It is apart from its
// producer so that the pure packages (classify) import a format, not
// nftables and netlink.
package sinklog

// Kinds of event in the log.
const (
	KindReady = "ready"
	KindDNS   = "dns"
	KindTCP   = "tcp"
	KindUDP   = "udp"
	KindHTTP  = "http"
	// KindData is more of a TCP stream the sink did not understand, after
	// the first bytes of its tcp event: ID names the connection, Offset
	// where Data starts in the stream.
	KindData = "data"
	// KindPayload is one message a client sent to a service fake (a
	// query, a command, a login, a mail): ID names the connection,
	// Service the fake, Op the kind of message.
	KindPayload = "payload"
	KindError   = "error"
)

// Service fakes the sink answers as (Event.Service).
const (
	ServicePostgres = "postgres"
	ServiceMySQL    = "mysql"
	ServiceRedis    = "redis"
	ServiceSMTP     = "smtp"
)

// Ops of payload events: what the client's message was.
const (
	OpStartup = "startup" // connection parameters (database, options)
	OpAuth    = "auth"    // a login: User and, when sent, Secret
	OpQuery   = "query"   // SQL text, or a prepared statement's parameters
	OpCommand = "command" // a Redis or SMTP command line
	OpMail    = "mail"    // an SMTP message (envelope in User/Data)
	OpRaw     = "raw"     // bytes the fake could not decode
)

// Event is one record of the sink's log.
type Event struct {
	// Time is Unix seconds with fractions (CLOCK_REALTIME, shared with the
	// host and the tracer).
	Time float64 `json:"t"`
	Kind string  `json:"kind"` // dns, tcp, udp, http, data, payload, error, ready

	// DNS
	Name   string   `json:"name,omitempty"`
	QType  string   `json:"qtype,omitempty"`
	Answer []string `json:"answer,omitempty"`

	// TCP and UDP
	ID     int      `json:"id,omitempty"`
	Src    string   `json:"src,omitempty"` // client address in the namespace
	Dst    string   `json:"dst,omitempty"` // original destination ip:port
	DstIP  string   `json:"dst_ip,omitempty"`
	Port   int      `json:"port,omitempty"`
	Proto  string   `json:"proto,omitempty"` // tls, http, other, none (no data)
	SNI    string   `json:"sni,omitempty"`
	ALPN   []string `json:"alpn,omitempty"`
	TLS    string   `json:"tls,omitempty"` // intercepted, failed: reason
	First  []byte   `json:"first,omitempty"`
	Length int      `json:"len,omitempty"`

	Requests []HTTPRequest `json:"requests,omitempty"`
	Data     []byte        `json:"data,omitempty"` // UDP payload, stream data or payload, bounded
	Offset   int           `json:"off,omitempty"`  // of stream data in its connection
	// Digest is the SHA-256 (hex) of what a stream carried past the bytes
	// kept (a data event of no data, Length the bytes it covers), so a
	// value sent after padding still compares.
	Digest string `json:"sha256,omitempty"`

	// Service fakes: which fake answered a connection (on its tcp event
	// and its payload events), and per payload what it was, the user it
	// logged in as, and the password as sent. The host searches Secret
	// for canaries like any payload but never prints it. Length is the
	// payload's size before the sink cut Data.
	Service string `json:"service,omitempty"`
	Op      string `json:"op,omitempty"`
	User    string `json:"user,omitempty"`
	Secret  []byte `json:"secret,omitempty"`

	Error string `json:"error,omitempty"`
}

// HTTPRequest is one request read from a client.
type HTTPRequest struct {
	Method    string      `json:"method"`
	Target    string      `json:"target"` // request target as sent
	Host      string      `json:"host"`
	Proto     string      `json:"proto"`
	Headers   [][2]string `json:"headers"`
	Body      []byte      `json:"body,omitempty"`
	BodyLen   int64       `json:"body_len"`
	Truncated bool        `json:"truncated,omitempty"`
	// BodySHA256 is the SHA-256 (hex) of the whole body when Body was
	// cut, so a value past the cut still compares.
	BodySHA256 string `json:"body_sha256,omitempty"`
	Status     int    `json:"status"` // what the sink answered
}

// Config is what the host tells the sink, as JSON in a file.
type Config struct {
	// Mode is "sinkhole" (nothing leaves) or "open" (real egress; DNS is
	// forwarded to Upstream and logged).
	Mode     string `json:"mode"`
	Upstream string `json:"upstream,omitempty"`
	// CACert and CAKey are PEM; the key never leaves the sink container.
	CACertFile string `json:"ca_cert_file"`
	CAKeyFile  string `json:"ca_key_file"`
	LogFile    string `json:"log_file"`
	// Answer are domain suffixes the sinkhole answers although no public
	// resolver would (special-use names and unknown top-level domains get
	// NXDOMAIN otherwise): the test harness's example and test, the
	// private hosts the canaries name.
	Answer []string `json:"answer,omitempty"`
	// Responses are canned HTTP answers per host ("*" is the default).
	Responses map[string]Response `json:"responses,omitempty"`
	// Fields are the fields the package's code reads from API answers
	// (sink.ReadFields): shaped answers that lack them get them.
	Fields []string `json:"fields,omitempty"`
	// AnswerNet is the range names are answered from (default FakeNet).
	AnswerNet string `json:"answer_net,omitempty"`
	// MaxLogBytes bounds the log; MaxBody bounds one recorded body.
	MaxLogBytes int64 `json:"max_log_bytes"`
	MaxBody     int64 `json:"max_body"`
}

// Response is a canned HTTP response.
type Response struct {
	Status      int    `json:"status"`
	ContentType string `json:"content_type"`
	Body        string `json:"body"`
}

// Ports the sink listens on inside the namespace.
const (
	PortDNS = 53
	PortTCP = 15001
	PortUDP = 15002
)

// FakeNet is the range DNS answers come from (RFC 2544 benchmarking range,
// never routed on the internet).
const FakeNet = "198.18.0.0/15"
