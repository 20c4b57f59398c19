package policy

// Harmful reports whether a finding is harm in itself, whatever any
// reviewed version did: a planted canary touched, sent, passed to a
// process or shown to the model; a persistence or AI-client write; a
// credential, private or AI-client file read; text aimed at the model;
// anything critical. Such findings fail every verdict — absolute, diff,
// check, the Action and batch, whatever fail_on says — and no baseline
// can make them pass: a baseline is an allow-list nobody reviews line by
// line, so it must never launder harm. They can be accepted only as a
// recorded, visible risk (`baseline update --accept-risk`).
func Harmful(f Finding) bool {
	switch {
	case f.Severity >= Critical:
		return true
	case f.Kind == KindCanary, f.Kind == KindPersistence, f.Kind == KindAIConfig, f.Kind == KindDerived, f.Kind == KindUserFile:
		return f.Severity >= High
	case f.Kind == KindTrace:
		// A cut trace or an overflowing list hides what came after it: a
		// baseline that had one must not excuse the next version's.
		return f.Severity >= High
	case f.Kind == KindSensitive, f.Kind == KindTool:
		// Reads of credentials and private files; text aimed at the model
		// (a description that merely changed is medium).
		return f.Severity >= High
	}
	return false
}

// HarmfulOnes returns the harmful findings of fs.
func HarmfulOnes(fs []Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		if Harmful(f) {
			out = append(out, f)
		}
	}
	return out
}
