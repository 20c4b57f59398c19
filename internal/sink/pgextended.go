package sink

import (
	"strconv"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/sinklog"
)

// bind records a portal's parameters, in text as the client sent them.
func (ps *pgSession) bind(r *wireReader, w *pgWriter) {
	portal, stmt := r.cstring(), r.cstring()
	nf := r.u16()
	inFormats := make([]int, 0, min(nf, 64))
	for i := 0; i < nf && !r.bad; i++ {
		if f := r.u16(); len(inFormats) < 64 {
			inFormats = append(inFormats, f)
		}
	}
	np := r.u16()
	var params []string
	var rec strings.Builder
	for i := 0; i < np && !r.bad; i++ {
		n := r.i32()
		val := "NULL"
		if n >= 0 {
			val = string(r.n(n))
		}
		params = append(params, val)
		rec.WriteString("$" + strconv.Itoa(i+1) + "=" + val + "\n")
	}
	nr := r.u16()
	var formats []int
	for i := 0; i < nr && !r.bad; i++ {
		if f := r.u16(); len(formats) < 1600 {
			formats = append(formats, f)
		}
	}
	if np > 0 {
		ps.sc.record(sinklog.OpQuery, []byte(rec.String()), "", nil)
	}
	if len(ps.portals) < maxPgNames || portal == "" {
		ps.portals[portal] = pgPortal{query: ps.stmts[stmt], params: params, formats: formats}
	}
	w.msg('2', nil)
}

// describe answers Describe of a statement (its parameters, then its
// columns) or of a portal (its columns in the formats bound).
func (ps *pgSession) describe(r *wireReader, w *pgWriter) {
	kind, name := r.n(1), r.cstring()
	var query string
	var formats []int
	if len(kind) == 1 && kind[0] == 'S' {
		query = ps.stmts[name]
		n := countParams(query)
		w.msg('t', func(b *pgWriter) {
			b.i16(n)
			for range n {
				// Unspecified: the client encodes each value as its type
				// suggests (pgx refuses an integer for a text parameter).
				b.i32(0)
			}
		})
	} else {
		p := ps.portals[name]
		query, formats = p.query, p.formats
	}
	res := ps.answer(query, nil)
	if res.cols == nil {
		w.msg('n', nil)
		return
	}
	w.rowDescription(res.cols, formats)
}

// answer answers one statement and follows the transaction state.
func (ps *pgSession) answer(q string, params []string) sqlResult {
	res := answerSQL(ps.d, q, params)
	switch res.tag {
	case "BEGIN":
		ps.tx = 'T'
	case "COMMIT", "ROLLBACK":
		ps.tx = 'I'
	}
	return res
}

// countParams is the highest $n in a statement.
func countParams(q string) int {
	n := 0
	for _, t := range sqlTokens(q) {
		if t.kind == 'p' && strings.HasPrefix(t.text, "$") {
			n = max(n, min(atoiOr(t.text[1:], 0), 1000))
		}
	}
	return n
}

// splitStatements splits a simple query at its top-level semicolons.
func splitStatements(q string) []string {
	toks := sqlTokens(q)
	var out []string
	start := 0
	for _, t := range toks {
		if t.kind == 'o' && t.text == ";" {
			if s := strings.TrimSpace(q[start:t.pos]); s != "" {
				out = append(out, s)
			}
			start = t.end
			if len(out) >= 100 {
				return out
			}
		}
	}
	if s := strings.TrimSpace(q[start:]); s != "" || len(out) == 0 {
		out = append(out, s)
	}
	return out
}
