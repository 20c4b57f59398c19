package argsynth

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// typ is the JSON type a value of the conjunction gets: the first one a
// member states (integer wins over number), else what its keywords imply.
func (c conj) typ() string {
	t := ""
	for _, s := range c {
		types := s.Types
		if s.Type != "" {
			types = []string{s.Type}
		}
		for _, x := range types {
			switch {
			case x == "null":
			case t == "":
				t = x
			case t == "number" && x == "integer":
				t = x
			}
		}
	}
	if t != "" {
		return t
	}
	if v, ok := c.constant(); ok {
		return jsonType(v)
	}
	if e := c.enum(); len(e) > 0 {
		return jsonType(e[0])
	}
	for _, s := range c {
		switch {
		case len(s.Properties) > 0 || len(s.Required) > 0 || s.MinProperties != nil || s.AdditionalProperties != nil:
			return "object"
		case s.Items != nil || s.PrefixItems != nil || s.ItemsArray != nil || s.MinItems != nil || s.Contains != nil:
			return "array"
		case s.Minimum != nil || s.Maximum != nil || s.ExclusiveMinimum != nil || s.ExclusiveMaximum != nil || s.MultipleOf != nil:
			return "number"
		}
	}
	for _, s := range c {
		if len(s.Types) > 0 && s.Types[0] == "null" || s.Type == "null" {
			return "null"
		}
	}
	return "string"
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64, int, int64, json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// constant is the first const of the conjunction.
func (c conj) constant() (any, bool) {
	for _, s := range c {
		if s.Const != nil {
			return *s.Const, true
		}
	}
	return nil, false
}

// enum is the first enum, less the values another member's enum lacks or
// a "not" rules out.
func (c conj) enum() []any {
	var out []any
	for i, s := range c {
		if len(s.Enum) == 0 {
			continue
		}
		if out == nil {
			out = slices.Clone(s.Enum)
			continue
		}
		out = slices.DeleteFunc(out, func(v any) bool { return !has(c[i].Enum, v) })
	}
	for _, s := range c {
		if s.Not == nil {
			continue
		}
		out = slices.DeleteFunc(out, func(v any) bool {
			return has(s.Not.Enum, v) || s.Not.Const != nil && reflect.DeepEqual(*s.Not.Const, v)
		})
	}
	return out
}

func has(list []any, v any) bool {
	return slices.ContainsFunc(list, func(x any) bool { return reflect.DeepEqual(x, v) })
}

// bounds is a numeric range: the tightest of the conjunction's.
type bounds struct {
	min, max         float64
	exclMin, exclMax bool
	multiple         float64
}

func (c conj) numbers() bounds {
	b := bounds{min: math.Inf(-1), max: math.Inf(1)}
	for _, s := range c {
		if s.Minimum != nil && *s.Minimum > b.min {
			b.min, b.exclMin = *s.Minimum, false
		}
		if s.ExclusiveMinimum != nil && *s.ExclusiveMinimum >= b.min {
			b.min, b.exclMin = *s.ExclusiveMinimum, true
		}
		if s.Maximum != nil && *s.Maximum < b.max {
			b.max, b.exclMax = *s.Maximum, false
		}
		if s.ExclusiveMaximum != nil && *s.ExclusiveMaximum <= b.max {
			b.max, b.exclMax = *s.ExclusiveMaximum, true
		}
		if s.MultipleOf != nil && *s.MultipleOf > 0 && b.multiple == 0 {
			b.multiple = *s.MultipleOf
		}
	}
	return b
}

// text are the string constraints of the conjunction.
type text struct {
	format, pattern string
	minLen, maxLen  int
}

func (c conj) stringRules() text {
	t := text{maxLen: -1}
	for _, s := range c {
		if t.format == "" {
			t.format = s.Format
		}
		if t.pattern == "" {
			t.pattern = s.Pattern
		}
		if s.MinLength != nil && *s.MinLength > t.minLen {
			t.minLen = *s.MinLength
		}
		if s.MaxLength != nil && (t.maxLen < 0 || *s.MaxLength < t.maxLen) {
			t.maxLen = *s.MaxLength
		}
	}
	return t
}

// list are the array constraints of the conjunction.
type list struct {
	minItems, maxItems int
	unique             bool
	items, contains    []*jsonschema.Schema
	prefix             [][]*jsonschema.Schema
}

func (c conj) arrays() list {
	l := list{maxItems: -1}
	for _, s := range c {
		if s.MinItems != nil && *s.MinItems > l.minItems {
			l.minItems = *s.MinItems
		}
		if s.MaxItems != nil && (l.maxItems < 0 || *s.MaxItems < l.maxItems) {
			l.maxItems = *s.MaxItems
		}
		l.unique = l.unique || s.UniqueItems
		if s.Items != nil {
			l.items = append(l.items, s.Items)
		}
		if s.Contains != nil {
			l.contains = append(l.contains, s.Contains)
		}
		prefix := s.PrefixItems
		if prefix == nil {
			prefix = s.ItemsArray
		}
		for i, p := range prefix {
			if i >= maxArray {
				break
			}
			for len(l.prefix) <= i {
				l.prefix = append(l.prefix, nil)
			}
			l.prefix[i] = append(l.prefix[i], p)
		}
	}
	return l
}

// fallback is a default the conjunction states, decoded.
func (c conj) fallback() (any, bool) {
	for _, s := range c {
		if len(s.Default) > 0 {
			var v any
			if json.Unmarshal(s.Default, &v) == nil {
				return v, true
			}
		}
	}
	return nil, false
}

// examples are the schema's own examples.
func (c conj) examples() []any {
	var out []any
	for _, s := range c {
		out = append(out, s.Examples...)
	}
	return out
}
