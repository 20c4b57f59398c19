package argsynth

import (
	"math"
	"regexp"
	"slices"
	"strings"
)

// number picks the default, or what the parameter's name asks for (a
// timeout long enough to wait), or 1, moved inside the bounds.
func number(c conj, name string, integer bool) any {
	v := 1.0
	if d, ok := c.fallback(); ok {
		if f, ok := d.(float64); ok {
			v = f
		}
	} else if t, ok := timeoutValue(name, c.description()); ok {
		v = t
	}
	b := c.numbers()
	if v < b.min || b.exclMin && v <= b.min {
		v = b.min
		if b.exclMin {
			v = b.min + 1
		}
	}
	if v > b.max || b.exclMax && v >= b.max {
		v = b.max
		if b.exclMax {
			v = b.max - 1
		}
		if v < b.min || b.exclMin && v <= b.min {
			v = (b.min + b.max) / 2 // a narrow open range
		}
	}
	if m := b.multiple; m > 0 {
		v = math.Ceil(v/m) * m
		if v > b.max {
			v = math.Floor(b.max/m) * m
		}
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		v = 0
	}
	if integer {
		v = math.Ceil(v)
		if v > b.max {
			v = math.Floor(b.max)
		}
		if math.Abs(v) < 1<<53 {
			return int64(v)
		}
	}
	return v
}

// reMillis: a description that gives a time in milliseconds.
var reMillis = regexp.MustCompile(`(?i)\bmillis|\bms\b`)

// timeoutValue is the time a parameter named for a timeout is given: five
// seconds, in milliseconds unless its name or description says seconds
// (a timeout of 1, the default pick, fails every call that waits).
func timeoutValue(name, desc string) (float64, bool) {
	ws := words(name)
	if !slices.Contains(ws, "timeout") {
		return 0, false
	}
	switch {
	case slices.Contains(ws, "ms") || slices.Contains(ws, "millis") || reMillis.MatchString(desc):
		return 5000, true
	case slices.Contains(ws, "sec") || slices.Contains(ws, "secs") || slices.Contains(ws, "seconds") || strings.Contains(strings.ToLower(desc), "second"):
		return 5, true
	}
	return 5000, true // JavaScript's unit
}
