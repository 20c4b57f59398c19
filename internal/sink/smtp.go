package sink

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// Bounds of the SMTP fake: one command line, recipients per message.
const (
	smtpMaxLine  = 64 << 10
	smtpMaxRcpts = 100
	smtpMaxSize  = 32 << 20 // what the fake advertises (SIZE) and reads of one message
)

var errLineTooLong = errors.New("line too long")

// readLine reads one line of at most max bytes, without its end.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var out []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(out)+len(chunk) > max {
			return nil, errLineTooLong
		}
		out = append(out, chunk...)
		if err == nil {
			return bytes.TrimRight(out, "\r\n"), nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
}

// smtpSession is one connection to the SMTP fake.
type smtpSession struct {
	sc     *svcConn
	host   string
	from   string
	rcpts  []string
	queued int
}

// serveSMTP speaks ESMTP first with its banner: EHLO, STARTTLS with the
// run's CA (unless already inside TLS, as on 465), AUTH PLAIN, LOGIN and
// XOAUTH2 (any credential accepted, the password recorded as a secret),
// and MAIL, RCPT, DATA, each message recorded whole up to the sink's body
// bound and answered as queued.
func serveSMTP(sc *svcConn) {
	ss := &smtpSession{sc: sc, host: orStr(sc.ev.Name, "mail.example")}
	if sc.write([]byte("220 "+ss.host+" ESMTP ready\r\n")) != nil {
		return
	}
	for {
		if sc.next() != nil {
			return
		}
		line, err := readLine(sc.r, smtpMaxLine)
		if err != nil {
			if errors.Is(err, errLineTooLong) {
				sc.drainRaw(nil)
			}
			return
		}
		reply, quit := ss.command(line)
		if reply != "" && sc.write([]byte(reply)) != nil || quit {
			return
		}
	}
}

// command answers one command line and reports whether to close.
func (ss *smtpSession) command(line []byte) (string, bool) {
	sc := ss.sc
	verb, arg, _ := strings.Cut(string(line), " ")
	verb = strings.ToUpper(verb)
	if verb != "AUTH" {
		sc.record(sinklog.OpCommand, line, "", nil)
	}
	switch verb {
	case "EHLO":
		ext := []string{ss.host + " greets " + arg, "PIPELINING", "SIZE " + strconv.Itoa(smtpMaxSize), "8BITMIME", "ENHANCEDSTATUSCODES", "SMTPUTF8"}
		if !sc.tlsDone && sc.s.certs != nil {
			ext = append(ext, "STARTTLS")
		}
		ext = append(ext, "AUTH PLAIN LOGIN XOAUTH2")
		var b strings.Builder
		for i, e := range ext {
			sep := "-"
			if i == len(ext)-1 {
				sep = " "
			}
			b.WriteString("250" + sep + e + "\r\n")
		}
		return b.String(), false
	case "HELO":
		return "250 " + ss.host + "\r\n", false
	case "STARTTLS":
		if sc.tlsDone || sc.s.certs == nil {
			return "454 4.7.0 TLS not available\r\n", false
		}
		if sc.write([]byte("220 2.0.0 Ready to start TLS\r\n")) != nil || sc.startTLS() != nil {
			return "", true
		}
		ss.from, ss.rcpts = "", nil
		return "", false
	case "AUTH":
		return ss.auth(arg)
	case "MAIL":
		ss.from, ss.rcpts = smtpPath(arg), nil
		return "250 2.1.0 Ok\r\n", false
	case "RCPT":
		if len(ss.rcpts) >= smtpMaxRcpts {
			return "452 4.5.3 Too many recipients\r\n", false
		}
		ss.rcpts = append(ss.rcpts, smtpPath(arg))
		return "250 2.1.5 Ok\r\n", false
	case "DATA":
		return ss.data()
	case "RSET":
		ss.from, ss.rcpts = "", nil
		return "250 2.0.0 Ok\r\n", false
	case "NOOP":
		return "250 2.0.0 Ok\r\n", false
	case "VRFY":
		return "252 2.0.0 Cannot VRFY user, but will accept message\r\n", false
	case "HELP":
		return "214 2.0.0 See RFC 5321\r\n", false
	case "QUIT":
		return "221 2.0.0 Bye\r\n", true
	}
	return "502 5.5.2 Error: command not recognized\r\n", false
}

// smtpPath is the address of "FROM:<a@b> SIZE=…".
func smtpPath(arg string) string {
	_, p, ok := strings.Cut(arg, ":")
	if !ok {
		p = arg
	}
	p = strings.TrimSpace(p)
	if i := strings.IndexByte(p, '>'); strings.HasPrefix(p, "<") && i > 0 {
		return p[1:i]
	}
	p, _, _ = strings.Cut(p, " ")
	return p
}

// auth takes any credential: PLAIN's, LOGIN's user and password, or
// XOAUTH2's user and token.
func (ss *smtpSession) auth(arg string) (string, bool) {
	mech, initial, _ := strings.Cut(arg, " ")
	mech = strings.ToUpper(mech)
	ask := func(prompt string) ([]byte, bool) {
		if ss.sc.write([]byte("334 "+prompt+"\r\n")) != nil || ss.sc.next() != nil {
			return nil, false
		}
		line, err := readLine(ss.sc.r, smtpMaxLine)
		return smtpDecode(line), err == nil
	}
	var user string
	var secret []byte
	switch mech {
	case "PLAIN", "XOAUTH2":
		resp := smtpDecode([]byte(initial))
		if initial == "" {
			var ok bool
			if resp, ok = ask(""); !ok {
				return "", true
			}
		}
		if mech == "PLAIN" {
			parts := bytes.SplitN(resp, []byte{0}, 3)
			if len(parts) == 3 {
				user, secret = string(parts[1]), parts[2]
			} else {
				secret = resp
			}
		} else {
			for _, f := range bytes.Split(resp, []byte{1}) {
				if u, ok := bytes.CutPrefix(f, []byte("user=")); ok {
					user = string(u)
				} else if t, ok := bytes.CutPrefix(f, []byte("auth=")); ok {
					secret = t
				}
			}
		}
	case "LOGIN":
		u := smtpDecode([]byte(initial))
		ok := true
		if initial == "" {
			if u, ok = ask("VXNlcm5hbWU6"); !ok {
				return "", true
			}
		}
		if secret, ok = ask("UGFzc3dvcmQ6"); !ok {
			return "", true
		}
		user = string(u)
	default:
		ss.sc.record(sinklog.OpCommand, []byte("AUTH "+mech), "", nil)
		return "504 5.5.4 Unrecognized authentication type\r\n", false
	}
	ss.sc.record(sinklog.OpAuth, []byte("AUTH "+mech), user, secret)
	return "235 2.7.0 Authentication successful\r\n", false
}

// smtpDecode decodes a base64 line, or keeps it as sent when it is not.
func smtpDecode(b []byte) []byte {
	if d, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b))); err == nil {
		return d
	}
	return b
}

// data reads one message up to the lone dot, undoing dot-stuffing, and
// records it with its envelope.
func (ss *smtpSession) data() (string, bool) {
	sc := ss.sc
	if sc.write([]byte("354 End data with <CR><LF>.<CR><LF>\r\n")) != nil {
		return "", true
	}
	var msg bytes.Buffer
	msg.WriteString("MAIL FROM:<" + ss.from + ">\n")
	for _, r := range ss.rcpts {
		msg.WriteString("RCPT TO:<" + r + ">\n")
	}
	msg.WriteString("\n")
	size := 0
	for {
		sc.conn.SetReadDeadline(time.Now().Add(svcIdle))
		line, err := readLine(sc.r, smtpMaxLine)
		if err != nil {
			return "", true
		}
		if string(line) == "." {
			break
		}
		line = bytes.TrimPrefix(line, []byte("."))
		size += len(line) + 2
		if size > smtpMaxSize {
			return "552 5.3.4 Message size exceeds fixed limit\r\n", true
		}
		if int64(msg.Len()) <= sc.s.maxBody() {
			msg.Write(line)
			msg.WriteString("\r\n")
		}
	}
	sc.record(sinklog.OpMail, msg.Bytes(), ss.from, nil)
	ss.queued++
	ss.from, ss.rcpts = "", nil
	// The same message in every run gets the same id.
	return "250 2.0.0 Ok: queued as FAKE" + strconv.Itoa(ss.queued) + "\r\n", false
}
