package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

// TestHostileNamesCannotRepaintTheTerminal audits a server whose tool and
// file names carry escape sequences, a fake "verdict: pass" line and a
// bidi override: the summary on stderr holds none of them raw and ends in
// the one real verdict. The control is the same server without them.
func TestHostileNamesCannotRepaintTheTerminal(t *testing.T) {
	testenv.Image(t)
	fixture, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "fixtures", "fixture-server"))
	for _, args := range [][]string{{"ansi-names"}, {}} {
		var out, errb bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		code := Run(ctx, append([]string{"audit", "--idle-quiet", "500ms", "--calls", "none", "-o", filepath.Join(t.TempDir(), "m.json"), fixture, "--"}, args...),
			nil, &out, &errb, os.Getenv)
		cancel()
		if code == ExitRuntime || code == ExitUsage {
			t.Fatalf("%v: exit %d\n%s", args, code, errb.String())
		}
		summary := errb.String()
		for _, r := range summary {
			if r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.In(r, unicode.Bidi_Control)) {
				t.Errorf("%v: the summary passes %U through", args, r)
				break
			}
		}
		if n := strings.Count(summary, "\nverdict: "); n != 1 {
			t.Errorf("%v: %d verdict lines:\n%s", args, n, summary)
		}
		if len(args) > 0 && !strings.Contains(summary, `\x1b[2J`) {
			t.Errorf("the escape sequence should show, escaped:\n%s", summary)
		}
	}
}
