package sink

import (
	"strconv"
	"strings"
)

// project evaluates a select list over rows of table: columns by name,
// * for all of them, count(...) as the number of rows, constants and the
// few functions clients ask about (version(), current_database(), …);
// anything else is NULL under its label.
func project(d sqlDialect, query string, list []sqlTok, table sqlTable, rows [][]sqlVal, params []string) ([]sqlCol, [][]sqlVal) {
	type item struct {
		col   int // index in table, or -1
		val   sqlVal
		count bool
	}
	var cols []sqlCol
	var items []item
	aggregate := false
	for _, it := range splitTop(list, func(t sqlTok) bool { return t.text == "," && t.kind == 'o' }) {
		if len(it) == 0 {
			continue
		}
		expr, alias := splitAlias(it)
		if len(expr) == 0 {
			continue
		}
		if last := expr[len(expr)-1]; last.text == "*" && last.kind == 'o' {
			for i, c := range table.cols {
				cols, items = append(cols, c), append(items, item{col: i})
			}
			continue
		}
		if name, ok := columnRef(expr); ok {
			if i := colIndex(table, name); i >= 0 {
				c := table.cols[i]
				label := c.name
				if d.mysql {
					label = expr[len(expr)-1].text // as written
				}
				cols, items = append(cols, sqlCol{orStr(alias, label), c.typ}), append(items, item{col: i})
				continue
			}
		}
		label := alias
		if label == "" {
			label = exprLabel(d, query, expr)
		}
		if fn := strings.ToLower(expr[0].text); len(expr) > 1 && expr[1].text == "(" &&
			(fn == "count" || fn == "sum" || fn == "max" || fn == "min" || fn == "avg") {
			aggregate = true
			if fn == "count" {
				cols, items = append(cols, sqlCol{label, sqlInt}), append(items, item{col: -1, count: true})
				continue
			}
		}
		val, typ := evalExpr(d, expr, params)
		cols, items = append(cols, sqlCol{label, typ}), append(items, item{col: -1, val: val})
	}
	if aggregate {
		n := len(rows)
		if len(rows) > 0 {
			rows = rows[:1]
		} else {
			rows = [][]sqlVal{make([]sqlVal, len(table.cols))}
		}
		out := make([]sqlVal, len(items))
		for i, it := range items {
			switch {
			case it.count:
				out[i] = v(strconv.Itoa(n))
			case it.col >= 0 && n > 0:
				out[i] = rows[0][it.col]
			case it.col >= 0:
				out[i] = null
			default:
				out[i] = it.val
			}
		}
		return cols, [][]sqlVal{out}
	}
	out := make([][]sqlVal, 0, len(rows))
	for _, r := range rows {
		row := make([]sqlVal, len(items))
		for i, it := range items {
			if it.col >= 0 && it.col < len(r) {
				row[i] = r[it.col]
			} else {
				row[i] = it.val
			}
		}
		out = append(out, row)
	}
	return cols, out
}

// splitAlias separates "expr [AS] alias".
func splitAlias(it []sqlTok) ([]sqlTok, string) {
	n := len(it)
	if n >= 2 && (it[n-1].kind == 'i' || it[n-1].kind == 'q') {
		prev := it[n-2]
		if prev.is("as") {
			return it[:n-2], it[n-1].text
		}
		if prev.kind == 'q' || prev.kind == 'i' && !prev.is("distinct") || prev.kind == 'o' && prev.text == ")" || prev.kind == 's' || prev.kind == 'n' {
			return it[:n-1], it[n-1].text
		}
	}
	return it, ""
}

// columnRef reads "name" or "qualifier.name".
func columnRef(expr []sqlTok) (string, bool) {
	switch {
	case len(expr) == 1 && (expr[0].kind == 'i' || expr[0].kind == 'q'):
		return expr[0].name(), true
	case len(expr) == 3 && expr[1].text == "." && (expr[2].kind == 'i' || expr[2].kind == 'q'):
		return expr[2].name(), true
	}
	return "", false
}

func colIndex(t sqlTable, name string) int {
	for i, c := range t.cols {
		if strings.EqualFold(c.name, name) {
			return i
		}
	}
	return -1
}

// exprLabel is the column label a database gives an unaliased
// expression: PostgreSQL the function's name or ?column?, MySQL the
// expression as written.
func exprLabel(d sqlDialect, query string, expr []sqlTok) string {
	if d.mysql {
		a, b := expr[0].pos, expr[len(expr)-1].end
		if a >= 0 && b <= len(query) && a < b {
			return textClip(query[a:b], 256)
		}
	}
	if expr[0].kind == 'i' && !strings.HasPrefix(expr[0].text, "@@") {
		return strings.ToLower(expr[0].text)
	}
	return "?column?"
}

func textClip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// evalExpr evaluates a constant expression: literals, parameters, casts
// and the functions and variables clients ask a server about.
func evalExpr(d sqlDialect, expr []sqlTok, params []string) (sqlVal, sqlType) {
	t := expr[0]
	switch t.kind {
	case 's':
		return v(t.text), sqlText
	case 'n':
		if strings.ContainsAny(t.text, ".eE") {
			return v(t.text), sqlFloat
		}
		return v(t.text), sqlInt
	case 'p':
		if i := atoiOr(strings.TrimLeft(t.text, "$?"), 0); i >= 1 && i <= len(params) {
			return v(params[i-1]), sqlText
		}
		return null, sqlText
	}
	name := strings.ToLower(t.text)
	if strings.HasPrefix(name, "@@") {
		return mysqlVariable(strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(name, "@@"), "session."), "global.")), sqlText
	}
	switch name {
	case "null":
		return null, sqlText
	case "true", "false":
		return v(strconv.FormatBool(name == "true")), sqlBool
	case "version":
		if d.mysql {
			return v(mysqlVersion), sqlText
		}
		return v("PostgreSQL " + pgVersion + " on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit"), sqlText
	case "current_database", "database", "current_catalog":
		return v(d.db()), sqlText
	case "current_schema", "schema":
		return v(d.schema()), sqlText
	case "current_user", "user", "session_user", "system_user", "current_role":
		u := d.owner()
		if d.mysql {
			u += "@%"
		}
		return v(u), sqlText
	case "now", "current_timestamp", "localtimestamp", "sysdate", "statement_timestamp", "transaction_timestamp", "clock_timestamp":
		return v(fakeNow), sqlTime
	case "connection_id", "pg_backend_pid", "last_insert_id":
		return v("1"), sqlInt
	}
	return null, sqlText
}

// mysqlVariable answers SELECT @@name the way a default server would.
func mysqlVariable(name string) sqlVal {
	switch name {
	case "version":
		return v(mysqlVersion)
	case "version_comment":
		return v("MySQL Community Server - GPL")
	case "max_allowed_packet":
		return v("67108864")
	case "transaction_isolation", "tx_isolation":
		return v("REPEATABLE-READ")
	case "autocommit", "auto_increment_increment":
		return v("1")
	case "lower_case_table_names", "transaction_read_only", "tx_read_only", "read_only":
		return v("0")
	case "character_set_client", "character_set_connection", "character_set_results", "character_set_server":
		return v("utf8mb4")
	case "collation_connection", "collation_server":
		return v("utf8mb4_0900_ai_ci")
	case "time_zone":
		return v("SYSTEM")
	case "system_time_zone":
		return v("UTC")
	case "sql_mode":
		return v("ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION")
	case "wait_timeout", "interactive_timeout":
		return v("28800")
	}
	return v("")
}

// filterRows keeps the rows that satisfy the top-level equality tests of
// a WHERE clause (col = constant, joined by AND); tests it cannot read
// are taken as true, and a clause with a top-level OR keeps every row.
func filterRows(d sqlDialect, t sqlTable, rows [][]sqlVal, where []sqlTok, params []string) [][]sqlVal {
	if indexTop(where, kw("or")) >= 0 {
		return rows
	}
	type test struct {
		col int
		val string
	}
	var tests []test
	for _, part := range splitTop(where, kw("and")) {
		eq := indexTop(part, func(t sqlTok) bool { return t.kind == 'o' && t.text == "=" })
		if eq <= 0 || eq == len(part)-1 {
			continue
		}
		l, r := part[:eq], part[eq+1:]
		name, ok := columnRef(l)
		if !ok {
			if name, ok = columnRef(r); ok {
				l, r = r, l
			}
		}
		if !ok || colIndex(t, name) < 0 {
			continue
		}
		if r[0].kind == 'i' && !(len(r) > 1 && r[1].text == "(") && !strings.HasPrefix(r[0].text, "@@") && !knownConst(r[0].text) {
			continue // another column: a join condition
		}
		val, _ := evalExpr(d, r, params)
		if val.null {
			continue
		}
		tests = append(tests, test{colIndex(t, name), val.s})
	}
	var out [][]sqlVal
	for _, row := range rows {
		keep := true
		for _, tc := range tests {
			x := row[tc.col]
			keep = keep && !x.null && (x.s == tc.val || d.mysql && strings.EqualFold(x.s, tc.val))
		}
		if keep {
			out = append(out, row)
		}
	}
	return out
}

func knownConst(s string) bool {
	switch strings.ToLower(s) {
	case "current_user", "current_schema", "current_catalog", "session_user", "current_timestamp", "true", "false":
		return true
	}
	return false
}
