package argsynth

import "math"

// number picks the default, or 1, moved inside the bounds.
func number(c conj, integer bool) any {
	v := 1.0
	if d, ok := c.fallback(); ok {
		if f, ok := d.(float64); ok {
			v = f
		}
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
