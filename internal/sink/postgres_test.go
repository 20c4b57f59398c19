package sink

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
)

// TestPostgresFakeAnswersPgx: pgx, a real PostgreSQL driver, connects
// with a password (in clear and over TLS upgraded with the run's CA),
// lists the tables, selects rows with parameters in both the extended and
// the simple protocol, and the fake records the user, the password as a
// secret, every query and every parameter.
func TestPostgresFakeAnswersPgx(t *testing.T) {
	fs := startFake(t, "db.fixture.example", 5432)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, mode := range []string{"disable", "require"} {
		t.Run(mode, func(t *testing.T) {
			conn, err := pgx.Connect(ctx, "postgres://audit:pw-"+mode+"@"+fs.addr+"/audit?sslmode="+mode)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer conn.Close(ctx)
			if got := conn.PgConn().ParameterStatus("server_version"); got != pgVersion {
				t.Errorf("server_version %q", got)
			}
			rows, err := conn.Query(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1", "public")
			if err != nil {
				t.Fatal(err)
			}
			tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"users", "projects", "orders"}, tables); diff != "" {
				t.Errorf("tables (-want +got):\n%s", diff)
			}
			var id int32
			var name string
			var created time.Time
			var total float64
			if err := conn.QueryRow(ctx, "SELECT u.id, u.name, u.created_at FROM users u WHERE u.email = $1", "bob@example.com").Scan(&id, &name, &created); err != nil {
				t.Fatal(err)
			}
			if id != 2 || name != "Bob Example" || created.UTC().Format(time.DateTime) != "2024-02-20 14:05:00" {
				t.Errorf("row %d %q %v", id, name, created)
			}
			if err := conn.QueryRow(ctx, "SELECT total FROM orders LIMIT 1", pgx.QueryExecModeSimpleProtocol).Scan(&total); err != nil || total != 19.99 {
				t.Errorf("simple protocol: %v %v", total, err)
			}
			tag, err := conn.Exec(ctx, "INSERT INTO users (name) VALUES ($1)", "token-in-"+mode)
			if err != nil || tag.String() != "INSERT 0 1" {
				t.Errorf("insert: %v %v", tag, err)
			}
			if err := conn.QueryRow(ctx, "SELECT name FROM users WHERE id = $1", 3).Scan(&name); err != nil || name != "Carol Example" {
				t.Errorf("an integer parameter: %q %v", name, err)
			}
			var n int32
			if err := conn.QueryRow(ctx, "select count(*) from nowhere").Scan(&n); err != nil || n != 0 {
				t.Errorf("count of an unknown table: %d %v", n, err)
			}
		})
	}
	got := fs.payloads(t)
	for _, want := range []string{
		"postgres startup user=audit secret= database=audit",
		"postgres auth user=audit secret=pw-disable",
		"postgres auth user=audit secret=pw-require",
		"postgres query user= secret= SELECT table_name FROM information_schema.tables",
		"postgres query user= secret= $1=bob@example.com",
		"postgres query user= secret= $1=token-in-require",
		"postgres query user= secret= SELECT total FROM orders LIMIT 1",
	} {
		if !hasPayload(got, want) {
			t.Errorf("no payload %q in\n%s", want, got)
		}
	}
}
