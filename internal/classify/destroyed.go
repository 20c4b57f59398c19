package classify

import (
	"bytes"
	"path"
	"strings"
	"time"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/trace"
)

// A file seeded into the home or the workspace before the run is the
// user's data: deleting it, cutting it, rewriting it or moving it away
// destroys what was there, whatever the tool says it does. The trace
// tells which call did it; the workspace's files read back after the run
// (Input.Written) tell whether the content really changed (an atomic save
// of the same text, or an append, destroys nothing) and into what.

// seededFile is one pre-existing file and what the trace saw done to it.
type seededFile struct {
	norm    string
	content []byte
	// events are the trace's destructive calls on it, in order.
	events []seedEvent
}

// seedEvent is one destructive call on a seeded file.
type seedEvent struct {
	phase  *phaseAcc
	how    string // an m.Destroy* word; DestroyReplaced also for a write in place
	target string // normalized: where it moved, or what was renamed onto it
	// inPlace marks an open for writing without O_TRUNC: only the
	// content read back can tell whether it destroyed anything.
	inPlace bool
}

// seed lists the seeded files: the canary set's files that are not
// decoys (a decoy touched is a canary hit of its own), outside git's own
// database (a commit rewrites .git/index and refs; the work tree is the
// user's data).
func (c *classifier) seed() {
	c.seeded = map[string]*seededFile{}
	l := c.in.Layout
	if c.in.Canaries == nil || l.Home == "" {
		return
	}
	for _, f := range c.in.Canaries.Files {
		if f.Canary || strings.Contains("/"+f.Path+"/", "/.git/") {
			continue
		}
		abs := ""
		switch {
		case strings.HasPrefix(f.Path, "<workspace>/") && l.Workspace != "":
			abs = path.Join(l.Workspace, strings.TrimPrefix(f.Path, "<workspace>/"))
		case strings.HasPrefix(f.Path, "~/"):
			abs = path.Join(l.Home, strings.TrimPrefix(f.Path, "~/"))
		default:
			continue
		}
		c.seeded[abs] = &seededFile{norm: l.Normalize(abs), content: f.Content}
	}
}

// seedCall records a successful call that may destroy a seeded file:
// real is the file it acted on.
func (c *classifier) seedCall(p *phaseAcc, r trace.Record, real string) {
	if len(c.seeded) == 0 {
		return
	}
	add := func(abs string, ev seedEvent) {
		if s := c.seeded[abs]; s != nil {
			ev.phase = p
			s.events = append(s.events, ev)
		}
	}
	l := c.in.Layout
	switch r.Op {
	case "unlink":
		add(real, seedEvent{how: m.DestroyDeleted})
	case "truncate":
		add(real, seedEvent{how: m.DestroyTruncated})
	case "open":
		if r.Trunc {
			add(real, seedEvent{how: m.DestroyTruncated})
		} else if r.Write {
			add(real, seedEvent{how: m.DestroyReplaced, inPlace: true})
		}
	case "rename":
		if !strings.HasPrefix(r.Path2, "/") {
			return
		}
		dest := path.Join(c.resolve(path.Dir(r.Path2)), path.Base(r.Path2))
		add(real, seedEvent{how: m.DestroyMoved, target: l.Normalize(r.Path2)})
		add(dest, seedEvent{how: m.DestroyReplaced, target: l.Normalize(r.Path)})
	}
}

// destroyed decides, per seeded file, whether its content was destroyed
// and lists it in the phase of the first call that did.
func (c *classifier) destroyed() {
	if len(c.seeded) == 0 {
		return
	}
	back := map[string][]byte{}
	for _, w := range c.in.Written {
		back[w.Path] = w.Data
	}
	for abs, s := range c.seeded {
		data, readBack := back[abs]
		d, p, ok := s.decide(data, readBack)
		if !ok {
			continue
		}
		if p == nil {
			if p = c.phaseWriting(s.norm); p == nil {
				p = c.phaseAt(c.modTime(abs))
			}
		}
		if readable(s.content) {
			c.entropyOf(&d, abs, data, readBack, back)
		}
		p.Destroyed = append(p.Destroyed, d)
	}
}

// decide turns the calls seen and the content read back into a verdict:
// the first destructive call names how (and the phase), except that
// content read back that holds the original, unchanged or appended to,
// destroyed nothing. A changed file seen only by its content (a write the
// trace did not show as such) is replaced, or truncated when empty.
func (s *seededFile) decide(data []byte, readBack bool) (m.DestroyedFile, *phaseAcc, bool) {
	d := m.DestroyedFile{Path: s.norm}
	kept := readBack && bytes.HasPrefix(data, s.content)
	if kept {
		return d, nil, false
	}
	for _, ev := range s.events {
		if ev.inPlace && !readBack {
			continue // written in place, content unknown: not evidence of loss
		}
		d.How, d.Target = ev.how, ev.target
		if readBack && len(data) == 0 && len(s.content) > 0 && ev.how != m.DestroyMoved {
			d.How = m.DestroyTruncated
		} else if readBack && ev.how == m.DestroyTruncated && len(data) > 0 {
			d.How = m.DestroyReplaced
		}
		return d, ev.phase, true
	}
	if !readBack {
		return d, nil, false
	}
	d.How = m.DestroyReplaced
	if len(data) == 0 {
		d.How = m.DestroyTruncated
	}
	return d, nil, true
}

// entropyOf marks readable content replaced by random-looking bytes: the
// file itself as read back, the file it was moved to, or a file written
// beside it whose name starts with its own (README.md.enc, README.locked).
func (c *classifier) entropyOf(d *m.DestroyedFile, abs string, data []byte, readBack bool, back map[string][]byte) {
	if readBack && highEntropy(data) {
		d.HighEntropy = true
		return
	}
	dir, base := path.Dir(abs), path.Base(abs)
	stem := strings.TrimSuffix(base, path.Ext(base))
	if len(stem) < 3 {
		stem = base
	}
	for _, w := range c.in.Written {
		if w.Path == abs || c.seeded[w.Path] != nil || path.Dir(w.Path) != dir {
			continue
		}
		moved := d.How == m.DestroyMoved && c.in.Layout.Normalize(w.Path) == d.Target
		if (moved || strings.HasPrefix(path.Base(w.Path), stem)) && highEntropy(w.Data) {
			d.HighEntropy, d.Written = true, c.in.Layout.Normalize(w.Path)
			return
		}
	}
}

// modTime is when a file read back was last changed; zero when it was
// not read back (its phase is then the first).
func (c *classifier) modTime(abs string) (t time.Time) {
	for _, w := range c.in.Written {
		if w.Path == abs {
			return w.ModTime
		}
	}
	return t
}
