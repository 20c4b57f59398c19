package differential

import (
	"cmp"
	"net"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/classify"
	"github.com/mcp-audit/mcp-audit/internal/hosts"
	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// PhaseAt names the phase holding a moment of the run.
type PhaseAt func(time.Time) string

// FromSink turns the sink's log into records: every DNS question (name
// and type), every HTTP request (host, path, query, headers, body), every
// other stream's and datagram's bytes, every message to a service fake.
// The log is raw: canary values stay in the records, which never leave
// memory unredacted.
func FromSink(events []sinklog.Event, at PhaseAt) []Record {
	names := map[string]string{} // address → the name it was made up for
	for _, e := range events {
		if e.Kind == sinklog.KindDNS {
			for _, a := range e.Answer {
				names[a] = strings.ToLower(strings.TrimSuffix(e.Name, "."))
			}
		}
	}
	conns := map[int]string{} // a connection's id → its original destination
	for _, e := range events {
		if e.Kind == sinklog.KindTCP && e.Dst != "" {
			conns[e.ID] = e.Dst
		}
	}
	dest := func(e sinklog.Event) string {
		dst := e.Dst
		if dst == "" {
			dst = conns[e.ID] // data and payload events name only their connection
		}
		ip, port, _ := net.SplitHostPort(dst)
		if n := names[ip]; n != "" {
			return hosts.Registrable(n) + ":" + port
		}
		return dst
	}
	var out []Record
	for _, e := range events {
		ts := time.Unix(0, int64(e.Time*1e9))
		switch e.Kind {
		case sinklog.KindDNS:
			name := strings.ToLower(strings.TrimSuffix(e.Name, "."))
			r := Record{Phase: at(ts), Channel: ChannelDNS, Dest: hosts.Registrable(name)}
			r.AddField("name", name)
			r.AddField("qtype", e.QType)
			out = append(out, r)
		case sinklog.KindHTTP, sinklog.KindTCP:
			for _, q := range e.Requests {
				host := strings.ToLower(q.Host)
				if h, _, err := net.SplitHostPort(host); err == nil {
					host = h
				}
				r := Record{Phase: at(ts), Channel: ChannelHTTP, Dest: hosts.Registrable(host) + " " + q.Method}
				r.AddURL("http://" + host + q.Target)
				for _, h := range q.Headers {
					r.AddField("header."+strings.ToLower(h[0]), h[1])
				}
				r.AddText("body", string(q.Body))
				if q.BodySHA256 != "" {
					r.AddField("body.sha256", q.BodySHA256) // past what the sink kept
				}
				out = append(out, r)
			}
			if e.Kind == sinklog.KindTCP && len(e.Requests) == 0 && len(e.First) > 0 && e.Proto != "http" && e.Proto != "tls" {
				r := Record{Phase: at(ts), Channel: ChannelTCP, Dest: dest(e)}
				r.AddText("data", string(e.First))
				out = append(out, r)
			}
		case sinklog.KindData:
			r := Record{Phase: at(ts), Channel: ChannelTCP, Dest: dest(e)}
			r.AddText("data", string(e.Data))
			if e.Digest != "" {
				r.AddField("data.sha256", e.Digest) // past what the sink kept
			}
			out = append(out, r)
		case sinklog.KindUDP:
			// The sink cannot tell a datagram's original address (the
			// trace can): one destination for all of them.
			r := Record{Phase: at(ts), Channel: ChannelUDP, Dest: cmp.Or(dest(e), "datagrams")}
			r.AddText("data", string(e.Data))
			out = append(out, r)
		case sinklog.KindPayload:
			r := Record{Phase: at(ts), Channel: ChannelService, Dest: e.Service + " " + dest(e)}
			r.AddField("op", e.Op)
			r.AddField("user", e.User)
			r.AddField("secret", string(e.Secret))
			r.AddText("data", string(e.Data))
			out = append(out, r)
		}
	}
	return out
}

// Text is one text the server emitted outside the network: a call's
// result, a message besides its answers, a file it wrote.
type Text struct {
	Time    time.Time
	Phase   string // set: this phase, not the one at Time
	Channel string
	Dest    string
	Text    string
	Caller  bool
}

// FromTexts turns texts into records.
func FromTexts(texts []Text, at PhaseAt) []Record {
	out := make([]Record, 0, len(texts))
	for _, t := range texts {
		ph := t.Phase
		if ph == "" {
			ph = at(t.Time)
		}
		r := Record{Phase: ph, Channel: t.Channel, Dest: t.Dest, Caller: t.Caller}
		r.AddText("text", t.Text)
		out = append(out, r)
	}
	return out
}

// Emissions are everything a run (or one of its restarted segments)
// emitted, placed in the phases of its windows: the sink's log, the
// texts it said or returned, and the workspace files it wrote, less the
// files that are no output of the server's (classify.ReadBack.Kept), each
// file in the phase whose trace wrote it last, else at its modification
// time. A commit of the workspace stores its files, which differ in every
// run, in objects named by their content, rewrites the index and the logs
// with the commit's id, and touches the planted objects it already has;
// that is the repository keeping its work tree, not an emission (a
// credential there stays a canary hit; sending what git stored is judged
// where it goes).
func Emissions(events []sinklog.Event, texts []Text, written []classify.WrittenFile, windows []classify.Window, normalize func(string) string, rb classify.ReadBack) []Record {
	at := func(t time.Time) string { return classify.PhaseAt(windows, t) }
	for _, w := range written {
		norm := normalize(w.Path)
		if rb.Kept[norm] {
			continue
		}
		texts = append(texts, Text{Time: w.ModTime, Phase: rb.Phase[norm], Channel: ChannelFile, Dest: norm, Text: string(w.Data)})
	}
	return append(FromSink(events, at), FromTexts(texts, at)...)
}
