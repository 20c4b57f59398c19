package deptree

import "fmt"

// Severity is how much a change or observation weighs. It has the order
// and the names of policy.Severity (Info lowest), so the caller converts
// with policy.Severity(s); the package does not import policy, so the
// manifest can hold its types.
type Severity int

// Severities, lowest first.
const (
	Info Severity = iota
	Low
	Medium
	High
	Critical
)

var severityNames = []string{"info", "low", "medium", "high", "critical"}

func (s Severity) String() string {
	if s >= 0 && int(s) < len(severityNames) {
		return severityNames[s]
	}
	return "unknown"
}

// MarshalText encodes the severity's name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText decodes a severity's name, so stored changes read back.
func (s *Severity) UnmarshalText(b []byte) error {
	for i, n := range severityNames {
		if string(b) == n {
			*s = Severity(i)
			return nil
		}
	}
	return fmt.Errorf("unknown severity %q", b)
}
