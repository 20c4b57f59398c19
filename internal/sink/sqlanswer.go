package sink

import (
	"strconv"
	"strings"
)

// sqlResult is the fakes' answer to one statement: rows (cols non-nil)
// or a command's completion.
type sqlResult struct {
	cols     []sqlCol
	rows     [][]sqlVal
	tag      string // PostgreSQL's command tag: "SELECT 3", "INSERT 0 1"
	affected int64
	insertID int64
	empty    bool // an empty statement
}

// fakeNow is the one time the SQL fakes know: answers must not change
// from run to run.
const fakeNow = "2024-06-01 12:00:00"

// answerSQL answers one statement from the seeded schema: catalog
// queries and selects from the seeded tables get rows, writes report one
// row changed, anything else an empty but well-formed result.
func answerSQL(d sqlDialect, query string, params []string) sqlResult {
	toks := sqlTokens(query)
	for len(toks) > 0 && toks[len(toks)-1].kind == 'o' && toks[len(toks)-1].text == ";" {
		toks = toks[:len(toks)-1]
	}
	if len(toks) == 0 {
		return sqlResult{empty: true, tag: ""}
	}
	// Only the first statement of several is answered.
	if i := indexTop(toks, func(t sqlTok) bool { return t.kind == 'o' && t.text == ";" }); i > 0 {
		toks = toks[:i]
	}
	verb := strings.ToUpper(toks[0].text)
	switch verb {
	case "SELECT", "WITH", "TABLE", "VALUES":
		return selectSQL(d, query, toks, params)
	case "SHOW":
		return showSQL(d, toks)
	case "DESCRIBE", "DESC":
		if len(toks) > 1 {
			return describeSQL(d, toks[1:])
		}
	case "EXPLAIN":
		return rowsResult([]sqlCol{{"QUERY PLAN", sqlText}}, [][]sqlVal{{v("Seq Scan  (cost=0.00..1.03 rows=3 width=72)")}})
	case "INSERT", "UPDATE", "DELETE":
		return writeSQL(d, query, toks, params, verb)
	case "BEGIN", "START":
		return sqlResult{tag: "BEGIN"}
	case "COMMIT", "END":
		return sqlResult{tag: "COMMIT"}
	case "CREATE", "DROP", "ALTER":
		tag := verb
		if len(toks) > 1 && toks[1].kind == 'i' {
			tag += " " + strings.ToUpper(toks[1].text)
		}
		return sqlResult{tag: tag}
	}
	return sqlResult{tag: verb}
}

func rowsResult(cols []sqlCol, rows [][]sqlVal) sqlResult {
	return sqlResult{cols: cols, rows: rows, tag: "SELECT " + strconv.Itoa(len(rows))}
}

// writeSQL answers INSERT, UPDATE and DELETE as one row changed, with
// RETURNING columns when asked for.
func writeSQL(d sqlDialect, query string, toks []sqlTok, params []string, verb string) sqlResult {
	r := sqlResult{affected: 1, insertID: 4}
	r.tag = verb + " 1"
	if verb == "INSERT" {
		r.tag = "INSERT 0 1"
	}
	if i := indexTop(toks, kw("returning")); i > 0 {
		table := sqlTable{}
		if j := indexTop(toks, kw("into", "update", "from")); j >= 0 && j+1 < len(toks) {
			table, _ = d.seedTable(qualifiedName(toks[j+1:]))
		}
		row := map[string]sqlVal{"id": v("4"), "created_at": v(fakeNow), "updated_at": v(fakeNow)}
		cols, vals := project(d, query, toks[i+1:], table, [][]sqlVal{seedRow(table, row)}, params)
		r.cols, r.rows = cols, vals
	}
	return r
}

// seedRow is a new row of t: the values given, others NULL.
func seedRow(t sqlTable, given map[string]sqlVal) []sqlVal {
	row := make([]sqlVal, len(t.cols))
	for i, c := range t.cols {
		if x, ok := given[c.name]; ok {
			row[i] = x
		} else {
			row[i] = null
		}
	}
	return row
}

// selectSQL answers a SELECT from its select list, source table, top-level
// equality filters and LIMIT. A table the fake does not hold gives no rows.
func selectSQL(d sqlDialect, query string, toks []sqlTok, params []string) sqlResult {
	if toks[0].is("with") {
		// Answer the main statement of a common table expression.
		if i := indexTop(toks[1:], kw("select")); i >= 0 {
			toks = toks[i+1:]
		}
	}
	if len(toks) == 0 || !toks[0].is("select") {
		return rowsResult(nil, nil)
	}
	body := toks[1:]
	from := indexTop(body, kw("from"))
	list := clauseUntil(body)
	var table sqlTable
	known, source := false, false
	if from >= 0 {
		list = body[:from]
		rest := body[from+1:]
		name := qualifiedName(rest)
		if table, known = d.catalog(name); !known {
			table, known = d.seedTable(name)
		}
		source = true
		rows := table.rows
		if w := indexTop(rest, kw("where")); w >= 0 {
			rows = filterRows(d, table, rows, clauseUntil(rest[w+1:]), params)
		}
		table.rows = limitRows(rest, rows)
	}
	for len(list) > 0 && list[0].is("distinct") || len(list) > 0 && list[0].is("all") {
		list = list[1:]
	}
	if source && !known {
		table.rows = nil
	}
	if !source {
		table.rows = limitRows(body, [][]sqlVal{{}})
	}
	cols, rows := project(d, query, list, table, table.rows, params)
	return rowsResult(cols, rows)
}

// qualifiedName reads a possibly schema-qualified table name, lowered.
func qualifiedName(toks []sqlTok) string {
	var parts []string
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != 'i' && t.kind != 'q' {
			break
		}
		parts = append(parts, t.name())
		if i+1 >= len(toks) || toks[i+1].text != "." {
			break
		}
		i++
	}
	return strings.Join(parts, ".")
}

// clauseUntil cuts a WHERE clause at the next top-level clause keyword.
func clauseUntil(toks []sqlTok) []sqlTok {
	if i := indexTop(toks, kw("group", "order", "limit", "offset", "having", "fetch", "for", "union", "window")); i >= 0 {
		return toks[:i]
	}
	return toks
}

func limitRows(rest []sqlTok, rows [][]sqlVal) [][]sqlVal {
	i := indexTop(rest, kw("limit"))
	if i < 0 || i+1 >= len(rest) {
		return rows
	}
	n, err := strconv.Atoi(rest[i+1].text)
	if err != nil || n < 0 {
		return rows
	}
	off := 0
	if j := indexTop(rest[i:], kw("offset")); j >= 0 && i+j+1 < len(rest) {
		off, _ = strconv.Atoi(rest[i+j+1].text)
	} else if i+3 < len(rest) && rest[i+2].text == "," {
		// MySQL's LIMIT offset, count.
		off, n = n, atoiOr(rest[i+3].text, n)
	}
	off = min(max(off, 0), len(rows))
	return rows[off:min(len(rows), off+n)]
}

func atoiOr(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return def
}
