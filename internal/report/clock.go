package report

import (
	"fmt"
	"time"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// clockLine says what "nothing seen" covers in the server's own time: the
// sandbox runs the server's clock fast (run.server_time). Empty for
// manifests without it.
func clockLine(st *m.ServerTime) string {
	if st == nil {
		return ""
	}
	d := st.Covered(m.PhaseStartup, m.PhaseIdle).Round(time.Second)
	if st.Rate <= 1 {
		return fmt.Sprintf("server clock covered %s of startup+idle (real time: no clock shim)", d)
	}
	return fmt.Sprintf("server clock covered %s of startup+idle (%dx real time)", d, st.Rate)
}
