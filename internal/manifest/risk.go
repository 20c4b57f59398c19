package manifest

// AcceptedRisk records harmful findings a reviewer accepted into a
// baseline.
type AcceptedRisk struct {
	Reason string `json:"reason"`
	// At is when it was accepted (RFC 3339, UTC).
	At string `json:"at"`
	// Findings are the accepted findings, one line each:
	// "SEVERITY KIND SUBJECT: SUMMARY", sorted.
	Findings []string `json:"findings"`
}
