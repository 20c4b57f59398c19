package policy

import (
	"fmt"
	"strings"
)

// Severity orders findings.
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
	if int(s) < len(severityNames) {
		return severityNames[s]
	}
	return "unknown"
}

// MarshalText encodes the severity name.
func (s Severity) MarshalText() ([]byte, error) {
	if s > Critical {
		return []byte("none"), nil
	}
	return []byte(s.String()), nil
}

// UnmarshalText decodes a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	*s = v
	return err
}

// ParseSeverity parses a severity name; "none" means nothing fails.
func ParseSeverity(s string) (Severity, error) {
	for i, n := range severityNames {
		if strings.EqualFold(s, n) {
			return Severity(i), nil
		}
	}
	if strings.EqualFold(s, "none") || strings.EqualFold(s, "never") {
		return Critical + 1, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want info, low, medium, high, critical or none)", s)
}
