package sandbox_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

// TestSeccompRefusesListener: seccomp() with SECCOMP_FILTER_FLAG_NEW_LISTENER
// is answered with EPERM, without it allowed, and no unconditional rule
// allows it besides.
func TestSeccompRefusesListener(t *testing.T) {
	js, err := sandbox.SeccompProfile()
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Syscalls []struct {
			Names    []string
			Action   string
			ErrnoRet *uint
			Args     []struct {
				Index, Value, ValueTwo uint64
				Op                     string
			}
		}
	}
	if err := json.Unmarshal([]byte(js), &p); err != nil {
		t.Fatal(err)
	}
	var refuse, allow int
	for _, s := range p.Syscalls {
		if !slices.Contains(s.Names, "seccomp") {
			continue
		}
		switch {
		case len(s.Args) == 1 && s.Args[0].Index == 1 && s.Args[0].Value == 8 && s.Args[0].ValueTwo == 8 &&
			s.Action == "SCMP_ACT_TRAP":
			refuse++
		case len(s.Args) == 1 && s.Args[0].Value == 8 && s.Args[0].ValueTwo == 0 && s.Action == "SCMP_ACT_ALLOW":
			allow++
		default:
			t.Errorf("other seccomp rule: %+v", s)
		}
	}
	if refuse != 1 || allow != 1 {
		t.Errorf("refuse %d allow %d", refuse, allow)
	}
}
