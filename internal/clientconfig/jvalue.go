package clientconfig

// jkind is the kind of a JSON value.
type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

// jvalue is a parsed JSON value and the line it starts on.
type jvalue struct {
	kind jkind
	line int
	str  string // a string's value, a number's text
	b    bool
	arr  []*jvalue
	obj  []jmember
}

// jmember is one key of an object.
type jmember struct {
	key  string
	line int
	val  *jvalue
}

// get is the value of key in an object (the last one, as JSON.parse
// keeps), or nil.
func (v *jvalue) get(key string) *jvalue {
	if v == nil || v.kind != jObject {
		return nil
	}
	for i := len(v.obj) - 1; i >= 0; i-- {
		if v.obj[i].key == key {
			return v.obj[i].val
		}
	}
	return nil
}

// members are an object's keys, the last of each duplicate kept, in
// file order.
func (v *jvalue) members() []jmember {
	if v == nil || v.kind != jObject {
		return nil
	}
	last := map[string]int{}
	for i, m := range v.obj {
		last[m.key] = i
	}
	var out []jmember
	for i, m := range v.obj {
		if last[m.key] == i {
			out = append(out, m)
		}
	}
	return out
}

// String names a kind as the user thinks of it.
func (k jkind) String() string {
	return [...]string{"null", "true or false", "a number", "a string", "a list", "an object"}[k]
}
