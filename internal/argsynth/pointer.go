package argsynth

import (
	"slices"
	"strconv"
	"strings"
)

// Sets are addressed by RFC 6901 JSON pointers ("/entities/0/name"):
// references, probes, fixed values and corrections name their location
// that way.

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// escape makes a property name a JSON pointer segment.
func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// cutLast splits a JSON pointer into its parent and last segment
// (unescaped).
func cutLast(p string) (string, string, bool) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "", "", false
	}
	return p[:i], strings.ReplaceAll(strings.ReplaceAll(p[i+1:], "~1", "/"), "~0", "~"), true
}

func splitPointer(p string) []string {
	if p == "" {
		return nil
	}
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return segs
}

// setAt replaces the value at a pointer's segments, when it exists.
func setAt(v any, segs []string, val any) any {
	if len(segs) == 0 {
		return val
	}
	switch x := v.(type) {
	case map[string]any:
		if old, ok := x[segs[0]]; ok {
			x[segs[0]] = setAt(old, segs[1:], val)
		}
	case []any:
		if i, err := strconv.Atoi(segs[0]); err == nil && i >= 0 && i < len(x) {
			x[i] = setAt(x[i], segs[1:], val)
		}
	}
	return v
}

func getAt(v any, segs []string) any {
	for _, s := range segs {
		switch x := v.(type) {
		case map[string]any:
			v = x[s]
		case []any:
			i, err := strconv.Atoi(s)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// putAt sets a value, creating the objects on the way.
func putAt(m map[string]any, segs []string, val any) {
	for i, s := range segs {
		if i == len(segs)-1 {
			m[s] = val
			return
		}
		next, ok := m[s].(map[string]any)
		if !ok {
			if _, isList := m[s].([]any); isList {
				return // a list on the way: leave it as it is
			}
			next = map[string]any{}
			m[s] = next
		}
		m = next
	}
}

func deleteAt(m map[string]any, segs []string) {
	if parent, ok := getAt(m, segs[:len(segs)-1]).(map[string]any); ok {
		delete(parent, segs[len(segs)-1])
	}
}
