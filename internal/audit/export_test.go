package audit

// ClientEnvFor is pickClientEnv's environment, for end-to-end tests that
// need to know which client profile a run gets.
func ClientEnvFor(seed string, run int) []string {
	_, env := pickClientEnv(seed, run)
	return env
}
