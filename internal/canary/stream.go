package canary

import "slices"

// MaxStreamHead bounds the bytes a Stream keeps from its start to
// decompress when it ends (a compressed stream is searched once, whole).
const MaxStreamHead = 256 << 10

// Stream searches data that arrives in pieces (the reads of one
// connection, the datagrams of one socket, the labels of successive DNS
// queries to one domain) for canaries that straddle the pieces. It keeps
// only the last Finder.window bytes between writes, so its memory is
// bounded whatever the stream's length.
type Stream struct {
	f     *Finder
	tail  []byte
	head  []byte // the stream's first bytes when they announce compression
	first bool
	best  map[string]int // strongest class reported per canary
	seen  map[Hit]bool
}

// Stream returns a new stream over the finder's canaries.
func (f *Finder) Stream() *Stream {
	return &Stream{f: f, first: true, best: map[string]int{}, seen: map[Hit]bool{}}
}

// Write searches p together with the end of what came before it and
// returns the hits not reported by an earlier write (a canary already
// reported is reported again only in a stronger class).
func (s *Stream) Write(p []byte) []Hit {
	if s == nil || s.f == nil || len(p) == 0 {
		return nil
	}
	if s.first {
		s.first = false
		if sniff(p) != "" {
			s.head = []byte{}
		}
	}
	if s.head != nil && len(s.head) < MaxStreamHead {
		s.head = append(s.head, p[:min(len(p), MaxStreamHead-len(s.head))]...)
	}
	win := append(s.tail, p...)
	r := &result{}
	s.f.searchAll(win, "", r)
	if keep := s.f.window; len(win) > keep {
		win = win[len(win)-keep:]
	}
	s.tail = slices.Clone(win)
	return s.fresh(r)
}

// Close searches the decompressed head of a stream that began compressed
// and returns the hits not reported before.
func (s *Stream) Close() []Hit {
	if s == nil || len(s.head) == 0 {
		return nil
	}
	r := &result{}
	if inner, coding := Inflate(s.head, ""); len(inner) > 0 {
		s.f.searchAll(inner, coding+"+", r)
	}
	s.head = nil
	return s.fresh(r)
}

// fresh returns the hits of r not yet reported.
func (s *Stream) fresh(r *result) []Hit {
	var out []Hit
	for _, h := range r.hits() {
		class := r.all[h]
		if b, ok := s.best[h.Canary]; (ok && class > b) || s.seen[h] {
			continue
		}
		s.best[h.Canary] = class
		s.seen[h] = true
		out = append(out, h)
	}
	return out
}
