package sink

import (
	"strings"
)

// The versions the SQL fakes claim: current releases, so that clients
// enable no compatibility quirks.
const (
	pgVersion    = "16.4"
	mysqlVersion = "8.0.39"
)

// showSQL answers SHOW statements: MySQL's tables, databases, columns,
// indexes and CREATE TABLE; PostgreSQL's run-time settings.
func showSQL(d sqlDialect, toks []sqlTok) sqlResult {
	rest := toks[1:]
	for len(rest) > 0 && (rest[0].is("full") || rest[0].is("extended") || rest[0].is("global") || rest[0].is("session")) {
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return rowsResult(nil, nil)
	}
	if !d.mysql {
		name := rest[0].name()
		return rowsResult([]sqlCol{{name, sqlText}}, [][]sqlVal{{v(pgSetting(name))}})
	}
	full := len(toks) > 1 && toks[1].is("full")
	switch strings.ToLower(rest[0].text) {
	case "tables":
		cols := []sqlCol{{"Tables_in_" + d.db(), sqlText}}
		if full {
			cols = append(cols, sqlCol{"Table_type", sqlText})
		}
		var rows [][]sqlVal
		for _, t := range seedTables {
			row := []sqlVal{v(t.name)}
			if full {
				row = append(row, v("BASE TABLE"))
			}
			rows = append(rows, row)
		}
		return rowsResult(cols, rows)
	case "databases", "schemas":
		return rowsResult([]sqlCol{{"Database", sqlText}},
			[][]sqlVal{{v("information_schema")}, {v(d.db())}, {v("mysql")}, {v("performance_schema")}})
	case "columns", "fields":
		if len(rest) > 2 {
			return describeSQL(d, rest[2:])
		}
	case "create":
		if len(rest) > 2 && rest[1].is("table") {
			name := qualifiedName(rest[2:])
			t, ok := d.seedTable(name)
			if !ok {
				return rowsResult([]sqlCol{{"Table", sqlText}, {"Create Table", sqlText}}, nil)
			}
			return rowsResult([]sqlCol{{"Table", sqlText}, {"Create Table", sqlText}}, [][]sqlVal{{v(t.name), v(createTable(d, t))}})
		}
	case "index", "indexes", "keys":
		if len(rest) > 2 {
			if t, ok := d.seedTable(qualifiedName(rest[2:])); ok {
				return rowsResult(textCols("Table", "Non_unique", "Key_name", "Seq_in_index", "Column_name"),
					[][]sqlVal{{v(t.name), v("0"), v("PRIMARY"), v("1"), v("id")}})
			}
		}
		return rowsResult(textCols("Table", "Non_unique", "Key_name", "Seq_in_index", "Column_name"), nil)
	case "warnings", "errors":
		return rowsResult(textCols("Level", "Code", "Message"), nil)
	}
	return rowsResult(textCols("Variable_name", "Value"), nil)
}

func pgSetting(name string) string {
	switch name {
	case "server_version":
		return pgVersion
	case "server_encoding", "client_encoding":
		return "UTF8"
	case "search_path":
		return `"$user", public`
	case "transaction_isolation", "default_transaction_isolation":
		return "read committed"
	case "standard_conforming_strings":
		return "on"
	case "timezone":
		return "UTC"
	case "max_connections":
		return "100"
	}
	return "off"
}

// describeSQL answers DESCRIBE t and SHOW COLUMNS FROM t.
func describeSQL(d sqlDialect, toks []sqlTok) sqlResult {
	cols := textCols("Field", "Type", "Null", "Key", "Default", "Extra")
	t, ok := d.seedTable(qualifiedName(toks))
	if !ok {
		return rowsResult(cols, nil)
	}
	var rows [][]sqlVal
	for _, c := range t.cols {
		key, extra := "", ""
		if c.name == "id" {
			key, extra = "PRI", "auto_increment"
		}
		rows = append(rows, []sqlVal{v(c.name), v(d.typeName(c.typ)), v(yesNo(c.name != "id")), v(key), null, v(extra)})
	}
	return rowsResult(cols, rows)
}

func createTable(d sqlDialect, t sqlTable) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE `" + t.name + "` (\n")
	for _, c := range t.cols {
		b.WriteString("  `" + c.name + "` " + d.typeName(c.typ))
		if c.name == "id" {
			b.WriteString(" NOT NULL AUTO_INCREMENT")
		}
		b.WriteString(",\n")
	}
	b.WriteString("  PRIMARY KEY (`id`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4")
	return b.String()
}

func orStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
