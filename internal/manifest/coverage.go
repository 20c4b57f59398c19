package manifest

// Coverage is how much of a server an audit exercised, so a reader knows
// what "nothing seen" covers: what it offered and what answered, why
// calls failed, what was never called and why, the protocol eras spoken,
// and what the audit could not observe at all. It is part of the compared
// manifest: a release that answers less than its baseline shows in a
// diff. Computed from the calls and the outcome (internal/coverage).
type Coverage struct {
	Tools     Count `json:"tools"`
	Prompts   Count `json:"prompts"`
	Resources Count `json:"resources"`
	Templates Count `json:"templates"`
	// Errors are the failed calls by class (ErrorClass…), sorted.
	Errors []ClassCount `json:"errors"`
	// NotCalled are the tools offered and never called, with why.
	NotCalled []NotCalled `json:"not_called"`
	// Eras are the protocol revisions the server answered in.
	Eras []string `json:"eras"`
	// Incomplete are the reasons the audit could not observe what a
	// verdict needs; empty when it could.
	Incomplete []string `json:"incomplete"`
}

// Count is offered, called, answered ok and answered with an error, by
// distinct item (a tool called twice counts once; ok when any call was).
type Count struct {
	Offered int `json:"offered"`
	Called  int `json:"called"`
	OK      int `json:"ok"`
	Error   int `json:"error"`
}

// ClassCount is how many calls failed in one way.
type ClassCount struct {
	Class string `json:"class"`
	Calls int    `json:"calls"`
}

// NotCalled is a tool the audit offered no call, or whose every call was
// skipped, and why.
type NotCalled struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// Classes of failed calls (Coverage.Errors).
const (
	ErrorClassInvalidArguments   = "invalid-arguments"   // the server rejected the arguments
	ErrorClassBackendUnreachable = "backend-unreachable" // it could not reach the service it fronts (or was refused there)
	ErrorClassMissingProgram     = "missing-program"     // it could not find a program or browser it runs
	ErrorClassTimeout            = "timeout"             // no answer within the call's time
	ErrorClassSkippedBudget      = "skipped-budget"      // not made: the time budget for calls was used up
	ErrorClassSkippedRestart     = "skipped-restart"     // not made: the server died and could not be restarted
	ErrorClassServerDied         = "server-died"         // the server exited during the call
	ErrorClassTooLarge           = "too-large"           // the answer exceeded the client's bound
	ErrorClassServerError        = "server-error"        // any other error answer
)
