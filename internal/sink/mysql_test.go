package sink

import (
	"context"
	"crypto/tls"
	"database/sql"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/google/go-cmp/cmp"
)

// TestMySQLFakeAnswersGoSQLDriver: go-sql-driver/mysql, a real MySQL
// driver, logs in with caching_sha2_password (the password RSA-encrypted
// to the sink's key without TLS, in clear with TLS), lists tables, describes one, selects
// with prepared statements and with parameters interpolated into the text; the fake records
// the user, the password as a secret and every statement and parameter.
func TestMySQLFakeAnswersGoSQLDriver(t *testing.T) {
	fs := startFake(t, "db.fixture.example", 3306)
	mysql.RegisterTLSConfig("fake", &tls.Config{RootCAs: fs.roots, ServerName: "db.fixture.example"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, tc := range []struct{ name, dsn string }{
		{"rsa", "audit:pw-rsa@tcp(" + fs.addr + ")/audit?parseTime=true"},
		{"tls", "audit:pw-tls@tcp(" + fs.addr + ")/audit?tls=fake&parseTime=true"},
		{"text", "audit:pw-text@tcp(" + fs.addr + ")/audit?interpolateParams=true&parseTime=true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := sql.Open("mysql", tc.dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := db.PingContext(ctx); err != nil {
				t.Fatalf("ping: %v", err)
			}
			rows, err := db.QueryContext(ctx, "SHOW TABLES")
			if err != nil {
				t.Fatal(err)
			}
			var tables []string
			for rows.Next() {
				var s string
				rows.Scan(&s)
				tables = append(tables, s)
			}
			rows.Close()
			if diff := cmp.Diff([]string{"users", "projects", "orders"}, tables); diff != "" {
				t.Errorf("tables (-want +got):\n%s", diff)
			}
			var field, typ string
			var null, key, extra string
			var def sql.NullString
			if err := db.QueryRowContext(ctx, "DESCRIBE users").Scan(&field, &typ, &null, &key, &def, &extra); err != nil || field != "id" || key != "PRI" {
				t.Errorf("describe: %q %q %v", field, key, err)
			}
			var id int64
			var name string
			var created time.Time
			var total float64
			err = db.QueryRowContext(ctx, "SELECT id, name, created_at FROM users WHERE email = ?", "carol@example.org").Scan(&id, &name, &created)
			if err != nil || id != 3 || name != "Carol Example" || created.Format(time.DateTime) != "2024-03-03 08:00:00" {
				t.Errorf("select: %d %q %v", id, name, err)
			}
			if err := db.QueryRowContext(ctx, "SELECT total FROM orders WHERE id = ?", 3).Scan(&total); err != nil || total != 120 {
				t.Errorf("an integer parameter: %v %v", total, err)
			}
			res, err := db.ExecContext(ctx, "INSERT INTO users (name) VALUES (?)", "token-in-"+tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := res.RowsAffected(); n != 1 {
				t.Errorf("rows affected %d", n)
			}
		})
	}
	got := fs.payloads(t)
	for _, want := range []string{
		"mysql startup user=audit secret= database=audit",
		"mysql auth user=audit secret=pw-rsa",
		"mysql auth user=audit secret=pw-tls",
		"mysql auth user=audit secret=pw-text",
		"mysql query user= secret= SHOW TABLES",
		"mysql query user= secret= ?1=carol@example.org",
		"mysql query user= secret= ?1=token-in-rsa",
		"mysql query user= secret= INSERT INTO users (name) VALUES ('token-in-text')",
	} {
		if !hasPayload(got, want) {
			t.Errorf("no payload %q in\n%s", want, got)
		}
	}
}
