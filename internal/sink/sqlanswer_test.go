package sink

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAnswerSQL: the statements database servers and their clients send
// get the seeded schema's answer: catalog queries list the tables, selects
// get rows (filtered by equality, limited), writes one row changed, and
// anything else an empty, well-formed result.
func TestAnswerSQL(t *testing.T) {
	pg := sqlDialect{database: "audit", user: "audit"}
	my := sqlDialect{mysql: true, database: "audit", user: "audit"}
	for _, tc := range []struct {
		name   string
		d      sqlDialect
		q      string
		params []string
		cols   string // labels joined by ","
		rows   string // rows joined by ";", values by ","
		tag    string
	}{
		{"pg tables", pg, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'", nil,
			"table_name", "users;projects;orders", "SELECT 3"},
		{"pg columns of a table by parameter", pg, "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = $1",
			[]string{"orders"}, "column_name,data_type", "id,integer;user_id,integer;total,double precision;status,text;created_at,timestamp with time zone", "SELECT 5"},
		{"pg_tables", pg, "select tablename from pg_catalog.pg_tables where schemaname='public' order by tablename", nil,
			"tablename", "users;projects;orders", "SELECT 3"},
		{"select star with limit", pg, "SELECT * FROM users LIMIT 2", nil, "id,name,email,created_at",
			"1,Alice Example,alice@example.com,2024-01-15 09:30:00;2,Bob Example,bob@example.com,2024-02-20 14:05:00", "SELECT 2"},
		{"equality filter", pg, "SELECT name FROM public.users u WHERE u.id = 2", nil, "name", "Bob Example", "SELECT 1"},
		{"no match", pg, "SELECT id FROM users WHERE name = $1", []string{"nobody"}, "id", "", "SELECT 0"},
		{"OR keeps every row", pg, "SELECT id FROM users WHERE id = 1 OR id = 2", nil, "id", "1;2;3", "SELECT 3"},
		{"count", pg, "SELECT count(*) FROM orders", nil, "count", "3", "SELECT 1"},
		{"constants", pg, "SELECT 1", nil, "?column?", "1", "SELECT 1"},
		{"version", pg, "select version()", nil, "version", "PostgreSQL 16.4 on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit", "SELECT 1"},
		{"unknown table", pg, "SELECT a, b AS c FROM nowhere", nil, "a,c", "", "SELECT 0"},
		{"insert returning", pg, "INSERT INTO users (name) VALUES ($1) RETURNING id, name", []string{"x"}, "id,name", "4,<null>", "INSERT 0 1"},
		{"transaction", pg, "BEGIN TRANSACTION READ ONLY", nil, "", "", "BEGIN"},
		{"pg show", pg, "SHOW server_version", nil, "server_version", "16.4", "SELECT 1"},
		{"mysql show tables", my, "SHOW TABLES", nil, "Tables_in_audit", "users;projects;orders", "SELECT 3"},
		{"mysql describe", my, "DESCRIBE `orders`", nil, "Field,Type,Null,Key,Default,Extra",
			"id,int,NO,PRI,<null>,auto_increment;user_id,int,YES,,<null>,;total,double,YES,,<null>,;status,varchar(255),YES,,<null>,;created_at,datetime,YES,,<null>,", "SELECT 5"},
		{"mysql schema by function", my, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()", nil,
			"TABLE_NAME", "users;projects;orders", "SELECT 3"},
		{"mysql placeholders", my, "SELECT id FROM users WHERE email = ? AND name = ?", []string{"bob@example.com", "bob example"}, "id", "2", "SELECT 1"},
		{"mysql labels as written", my, "select @@version_comment limit 1", nil, "@@version_comment", "MySQL Community Server - GPL", "SELECT 1"},
		{"mysql limit offset,count", my, "SELECT id FROM users LIMIT 1, 1", nil, "id", "2", "SELECT 1"},
		{"empty", pg, " ; ", nil, "", "", ""},
		{"comment and string", pg, "/* x */ SELECT 'it''s' AS s -- tail", nil, "s", "it's", "SELECT 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := answerSQL(tc.d, tc.q, tc.params)
			var cols []string
			for _, c := range r.cols {
				cols = append(cols, c.name)
			}
			var rows []string
			for _, row := range r.rows {
				var vals []string
				for _, x := range row {
					if x.null {
						vals = append(vals, "<null>")
					} else {
						vals = append(vals, x.s)
					}
				}
				rows = append(rows, strings.Join(vals, ","))
			}
			got := [3]string{strings.Join(cols, ","), strings.Join(rows, ";"), r.tag}
			if diff := cmp.Diff([3]string{tc.cols, tc.rows, tc.tag}, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
}
