package differential

import (
	"cmp"
	"slices"
)

// Derived is an emission that follows the planted values: some of its
// fields are the same in the primary and the calibration run (so they do
// not vary by themselves) and different in the variant run, or the whole
// emission appears in one side only (Presence).
type Derived struct {
	Phase, Channel, Dest string
	// Fields are the fields that differ, each with its value in the
	// primary run and in the variant run (raw: the caller redacts them).
	Fields []FieldDiff
	// Presence: the primary and calibration runs made the emission and
	// the variant run did not, or the variant run alone made it.
	Presence string
	// Occurrence is its place among the emissions of its key.
	Occurrence int
}

// FieldDiff is one field that differs with the planted values.
type FieldDiff struct {
	Name             string
	Primary, Variant string
}

// Bounds of a comparison's result.
const (
	maxDerived       = 200
	maxFieldsDerived = 8
)

// absent marks a field or an emission one run does not have.
const absent = "(absent)"

type key struct{ phase, channel, dest string }

func group(rs []Record) (map[key][]Record, []key) {
	out := map[key][]Record{}
	var order []key
	for i, r := range rs {
		if i == MaxRecords {
			break
		}
		k := key{r.Phase, r.Channel, r.Dest}
		if _, ok := out[k]; !ok {
			order = append(order, k)
		}
		out[k] = append(out[k], r)
	}
	return out, order
}

// Compare lists what follows the planted values: primary and calibration
// are runs with the same secrets, variant a run with others.
func Compare(primary, calibration, variant []Record) []Derived {
	p, order := group(primary)
	c, _ := group(calibration)
	v, vorder := group(variant)
	var out []Derived
	for _, k := range order {
		ps, cs, vs := p[k], c[k], v[k]
		if len(cs) == 0 {
			continue // not reproduced with the same secrets: it varies by itself
		}
		if len(vs) == 0 && len(ps) == len(cs) {
			out = append(out, Derived{Phase: k.phase, Channel: k.channel, Dest: k.dest, Presence: "only with the primary run's values"})
			continue
		}
		for i := 0; i < min(len(ps), len(cs), len(vs)); i++ {
			if ps[i].Caller {
				continue
			}
			if fd := fieldDiffs(ps[i], cs[i], vs[i]); len(fd) > 0 {
				out = append(out, Derived{Phase: k.phase, Channel: k.channel, Dest: k.dest, Fields: fd, Occurrence: i})
			}
		}
	}
	for _, k := range vorder {
		if len(p[k]) == 0 && len(c[k]) == 0 {
			out = append(out, Derived{Phase: k.phase, Channel: k.channel, Dest: k.dest, Presence: "only with the variant run's values"})
		}
	}
	slices.SortStableFunc(out, func(a, b Derived) int {
		return cmp.Or(cmp.Compare(a.Phase, b.Phase), cmp.Compare(a.Channel, b.Channel), cmp.Compare(a.Dest, b.Dest), cmp.Compare(a.Occurrence, b.Occurrence))
	})
	if len(out) > maxDerived {
		out = out[:maxDerived]
	}
	return out
}

// fieldDiffs are the fields of p that are the same in c (so not noise)
// and differ in v, and the fields only v has that neither p nor c has.
func fieldDiffs(p, c, v Record) []FieldDiff {
	pm, cm, vm := fields(p), fields(c), fields(v)
	var out []FieldDiff
	for _, f := range p.Fields {
		if cv, ok := cm[f.Name]; !ok || cv != f.Value {
			continue // varies by itself
		}
		vv, ok := vm[f.Name]
		if !ok {
			vv = absent
		}
		if vv != f.Value && len(out) < maxFieldsDerived {
			out = append(out, FieldDiff{Name: f.Name, Primary: f.Value, Variant: vv})
		}
	}
	for _, f := range v.Fields {
		_, inP := pm[f.Name]
		_, inC := cm[f.Name]
		if !inP && !inC && len(out) < maxFieldsDerived && len(pm) == len(cm) {
			out = append(out, FieldDiff{Name: f.Name, Primary: absent, Variant: f.Value})
		}
	}
	return out
}

func fields(r Record) map[string]string {
	m := make(map[string]string, len(r.Fields))
	for _, f := range r.Fields {
		if _, ok := m[f.Name]; !ok {
			m[f.Name] = f.Value
		}
	}
	return m
}
