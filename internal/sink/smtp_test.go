package sink

import (
	"crypto/tls"
	"errors"
	"net/smtp"
	"strings"
	"testing"
)

// loginAuth is AUTH LOGIN, which net/smtp does not ship.
type loginAuth struct{ user, pass string }

func (a loginAuth) Start(*smtp.ServerInfo) (string, []byte, error) { return "LOGIN", nil, nil }
func (a loginAuth) Next(from []byte, more bool) ([]byte, error) {
	switch {
	case !more:
		return nil, nil
	case string(from) == "Username:":
		return []byte(a.user), nil
	case string(from) == "Password:":
		return []byte(a.pass), nil
	}
	return nil, errors.New("unexpected challenge " + string(from))
}

// TestSMTPFakeAnswersNetSMTP: Go's net/smtp client sends mail through the
// fake on 587 (STARTTLS with the run's CA, AUTH PLAIN) and 465 (implicit
// TLS, AUTH LOGIN); the fake records the user, the password as a secret,
// the commands and each message with its envelope.
func TestSMTPFakeAnswersNetSMTP(t *testing.T) {
	for _, tc := range []struct {
		port     int
		implicit bool
	}{{587, false}, {465, true}} {
		t.Run(strings.TrimSpace(string(rune('0'+tc.port/100))+"xx"), func(t *testing.T) {
			fs := startFake(t, "smtp.fixture.example", tc.port)
			tlsCfg := &tls.Config{RootCAs: fs.roots, ServerName: "smtp.fixture.example"}
			var c *smtp.Client
			if tc.implicit {
				conn, err := tls.Dial("tcp", fs.addr, tlsCfg)
				if err != nil {
					t.Fatal(err)
				}
				if c, err = smtp.NewClient(conn, "smtp.fixture.example"); err != nil {
					t.Fatal(err)
				}
			} else {
				var err error
				if c, err = smtp.Dial(fs.addr); err != nil {
					t.Fatal(err)
				}
				if ok, _ := c.Extension("STARTTLS"); !ok {
					t.Fatal("no STARTTLS offered")
				}
				if err := c.StartTLS(tlsCfg); err != nil {
					t.Fatalf("starttls: %v", err)
				}
			}
			defer c.Close()
			var auth smtp.Auth = loginAuth{"audit@fixture.example", "pw-login"}
			if !tc.implicit {
				auth = smtp.PlainAuth("", "audit@fixture.example", "pw-plain", "127.0.0.1")
			}
			if err := c.Auth(auth); err != nil {
				t.Fatalf("auth: %v", err)
			}
			if err := c.Mail("audit@fixture.example"); err != nil {
				t.Fatal(err)
			}
			if err := c.Rcpt("someone@example.com"); err != nil {
				t.Fatal(err)
			}
			w, err := c.Data()
			if err != nil {
				t.Fatal(err)
			}
			w.Write([]byte("Subject: hello\r\n\r\n.leading dot\r\ntoken-in-body\r\n"))
			if err := w.Close(); err != nil {
				t.Fatalf("data: %v", err)
			}
			if err := c.Quit(); err != nil {
				t.Fatalf("quit: %v", err)
			}
			got := fs.payloads(t)
			pass := map[bool]string{false: "pw-plain", true: "pw-login"}[tc.implicit]
			for _, want := range []string{
				"smtp auth user=audit@fixture.example secret=" + pass,
				"smtp command user= secret= MAIL FROM:<audit@fixture.example>",
				"smtp mail user=audit@fixture.example secret= MAIL FROM:<audit@fixture.example>\nRCPT TO:<someone@example.com>\n\nSubject: hello\r\n\r\n.leading dot\r\ntoken-in-body",
			} {
				if !hasPayload(got, want) {
					t.Errorf("no payload %q in\n%q", want, got)
				}
			}
		})
	}
}
