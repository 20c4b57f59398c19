package sink

import (
	"strconv"
	"strings"
)

// sqlType is a column type the SQL fakes answer with; each wire protocol
// maps it to its own type codes.
type sqlType int

const (
	sqlText sqlType = iota
	sqlInt
	sqlFloat
	sqlTime // "2006-01-02 15:04:05", UTC
	sqlBool
)

// sqlCol is a result column.
type sqlCol struct {
	name string
	typ  sqlType
}

// sqlVal is one value in its text form; null is SQL NULL.
type sqlVal struct {
	s    string
	null bool
}

func v(s string) sqlVal { return sqlVal{s: s} }

var null = sqlVal{null: true}

// sqlTable is a table of the seeded schema or of a catalog.
type sqlTable struct {
	name string
	cols []sqlCol
	rows [][]sqlVal
}

// seedTables is the small schema every SQL fake holds: a few tables with
// rows, so that a server listing tables, describing one or selecting from
// it gets a plausible answer. Fixed values: the same query gets the same
// answer in every run.
var seedTables = []sqlTable{
	{name: "users", cols: []sqlCol{{"id", sqlInt}, {"name", sqlText}, {"email", sqlText}, {"created_at", sqlTime}},
		rows: [][]sqlVal{
			{v("1"), v("Alice Example"), v("alice@example.com"), v("2024-01-15 09:30:00")},
			{v("2"), v("Bob Example"), v("bob@example.com"), v("2024-02-20 14:05:00")},
			{v("3"), v("Carol Example"), v("carol@example.org"), v("2024-03-03 08:00:00")},
		}},
	{name: "projects", cols: []sqlCol{{"id", sqlInt}, {"name", sqlText}, {"owner_id", sqlInt}, {"status", sqlText}, {"created_at", sqlTime}},
		rows: [][]sqlVal{
			{v("1"), v("website"), v("1"), v("active"), v("2024-01-16 10:00:00")},
			{v("2"), v("mobile-app"), v("2"), v("archived"), v("2024-02-21 11:30:00")},
		}},
	{name: "orders", cols: []sqlCol{{"id", sqlInt}, {"user_id", sqlInt}, {"total", sqlFloat}, {"status", sqlText}, {"created_at", sqlTime}},
		rows: [][]sqlVal{
			{v("1"), v("1"), v("19.99"), v("paid"), v("2024-04-01 12:00:00")},
			{v("2"), v("2"), v("5.5"), v("pending"), v("2024-04-02 16:45:00")},
			{v("3"), v("1"), v("120"), v("shipped"), v("2024-04-03 09:15:00")},
		}},
}

// sqlDialect is what differs between the SQL fakes: names of the
// default schema and database, type names and labels.
type sqlDialect struct {
	mysql    bool
	database string // the database the client asked for
	user     string
}

// schema is the default schema tables live in: PostgreSQL's public, a
// MySQL database.
func (d sqlDialect) schema() string {
	if d.mysql {
		return d.db()
	}
	return "public"
}

func (d sqlDialect) db() string {
	if d.database == "" {
		if d.mysql {
			return "app"
		}
		return "postgres"
	}
	return d.database
}

func (d sqlDialect) typeName(t sqlType) string {
	names := map[sqlType][2]string{sqlText: {"text", "varchar(255)"}, sqlInt: {"integer", "int"}, sqlFloat: {"double precision", "double"},
		sqlTime: {"timestamp with time zone", "datetime"}, sqlBool: {"boolean", "tinyint(1)"}}
	if d.mysql {
		return names[t][1]
	}
	return names[t][0]
}

// catalog returns the catalog table name names (schema-qualified names
// lowered), or false: information_schema's tables, columns and schemata,
// and PostgreSQL's pg_tables and pg_namespace.
func (d sqlDialect) catalog(name string) (sqlTable, bool) {
	name = strings.TrimPrefix(name, "pg_catalog.")
	switch name {
	case "information_schema.tables":
		t := sqlTable{cols: textCols("table_catalog", "table_schema", "table_name", "table_type")}
		for _, s := range seedTables {
			t.rows = append(t.rows, []sqlVal{v(d.catalogName()), v(d.schema()), v(s.name), v("BASE TABLE")})
		}
		return t, true
	case "information_schema.columns":
		t := sqlTable{cols: append(textCols("table_catalog", "table_schema", "table_name", "column_name"),
			sqlCol{"ordinal_position", sqlInt}, sqlCol{"column_default", sqlText}, sqlCol{"is_nullable", sqlText},
			sqlCol{"data_type", sqlText}, sqlCol{"column_type", sqlText}, sqlCol{"column_key", sqlText})}
		for _, s := range seedTables {
			for i, c := range s.cols {
				key := ""
				if c.name == "id" {
					key = "PRI"
				}
				dt := d.typeName(c.typ)
				t.rows = append(t.rows, []sqlVal{v(d.catalogName()), v(d.schema()), v(s.name), v(c.name), v(strconv.Itoa(i + 1)),
					null, v(yesNo(c.name != "id")), v(strings.SplitN(dt, "(", 2)[0]), v(dt), v(key)})
			}
		}
		return t, true
	case "information_schema.schemata":
		t := sqlTable{cols: textCols("catalog_name", "schema_name", "schema_owner")}
		for _, s := range []string{"information_schema", d.schema()} {
			t.rows = append(t.rows, []sqlVal{v(d.catalogName()), v(s), v(d.owner())})
		}
		return t, true
	case "pg_tables":
		t := sqlTable{cols: append(textCols("schemaname", "tablename", "tableowner"), sqlCol{"hasindexes", sqlBool})}
		for _, s := range seedTables {
			t.rows = append(t.rows, []sqlVal{v("public"), v(s.name), v(d.owner()), v("true")})
		}
		return t, true
	case "pg_namespace":
		return sqlTable{cols: textCols("nspname"), rows: [][]sqlVal{{v("pg_catalog")}, {v("information_schema")}, {v("public")}}}, true
	}
	return sqlTable{}, false
}

func (d sqlDialect) catalogName() string {
	if d.mysql {
		return "def"
	}
	return d.db()
}

func (d sqlDialect) owner() string {
	if d.user == "" {
		return "postgres"
	}
	return d.user
}

func textCols(names ...string) []sqlCol {
	out := make([]sqlCol, len(names))
	for i, n := range names {
		out[i] = sqlCol{n, sqlText}
	}
	return out
}

func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

// seedTable finds a table of the seeded schema by (schema-qualified,
// lowered) name.
func (d sqlDialect) seedTable(name string) (sqlTable, bool) {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		if s := name[:i]; s != strings.ToLower(d.schema()) && s != "public" && s != strings.ToLower(d.db()) {
			return sqlTable{}, false
		}
		name = name[i+1:]
	}
	for _, t := range seedTables {
		if t.name == name {
			return t, true
		}
	}
	return sqlTable{}, false
}
