package audit

// Progress phases, in the order an audit goes through them.
const (
	StepInstall  = "install"
	StepStartup  = "startup"
	StepCalls    = "calls"
	StepIdle     = "idle"
	StepAnalysis = "analysis"
	StepDone     = "done" // the audit is over, whatever its outcome
)

// Step is where an audit is, for progress output: its target, its phase,
// and in the calls phase how many of the planned calls are done.
type Step struct {
	Target      string
	Phase       string
	Done, Total int
}

// step reports a step to o.Progress, if any.
func (o *Options) step(phase string, done, total int) {
	if o.Progress != nil {
		o.Progress(Step{Target: o.Target, Phase: phase, Done: done, Total: total})
	}
}
