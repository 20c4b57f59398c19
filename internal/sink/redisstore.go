package sink

import (
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// redisVersion is the version the Redis fake claims.
const redisVersion = "7.2.4"

// Bounds on the Redis fake's store, shared by the run's connections: a
// server that writes a key on one connection and reads it on another
// gets it back, but the store stays small.
const (
	maxStoreKeys  = 10_000
	maxStoreBytes = 8 << 20
)

// redisStore holds strings, hashes and lists.
type redisStore struct {
	mu     sync.Mutex
	str    map[string][]byte
	hash   map[string]map[string][]byte
	list   map[string][][]byte
	nbytes int
}

func (st *redisStore) init() {
	if st.str == nil {
		st.str, st.hash, st.list = map[string][]byte{}, map[string]map[string][]byte{}, map[string][][]byte{}
	}
}

// room reports whether n more bytes (and maybe a key) fit.
func (st *redisStore) room(n int) bool {
	keys := len(st.str) + len(st.hash) + len(st.list)
	return keys < maxStoreKeys && st.nbytes+n <= maxStoreBytes
}

func (st *redisStore) exists(k string) bool {
	_, a := st.str[k]
	_, b := st.hash[k]
	_, c := st.list[k]
	return a || b || c
}

func (st *redisStore) del(k string) int {
	if !st.exists(k) {
		return 0
	}
	delete(st.str, k)
	delete(st.hash, k)
	delete(st.list, k)
	return 1
}

func (st *redisStore) keys() []string {
	var out []string
	for _, m := range []map[string]bool{keySet(st.str), keySet(st.hash), keySet(st.list)} {
		for k := range m {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func keySet[V any](m map[string]V) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// apply answers one data command into w.
func (st *redisStore) apply(w *respWriter, args [][]byte) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.init()
	name := strings.ToUpper(string(args[0]))
	a := func(i int) string {
		if i < len(args) {
			return string(args[i])
		}
		return ""
	}
	switch name {
	case "PING":
		if len(args) > 1 {
			w.bulk(args[1])
		} else {
			w.simple("PONG")
		}
	case "ECHO":
		w.bulk([]byte(a(1)))
	case "GET", "GETDEL":
		if b, ok := st.str[a(1)]; ok {
			w.bulk(b)
			if name == "GETDEL" {
				st.del(a(1))
			}
		} else {
			w.null()
		}
	case "SET", "SETEX", "PSETEX", "SETNX", "MSET":
		st.set(w, name, args)
	case "MGET":
		w.array(len(args) - 1)
		for _, k := range args[1:] {
			if b, ok := st.str[string(k)]; ok {
				w.bulk(b)
			} else {
				w.null()
			}
		}
	case "DEL", "UNLINK", "EXISTS":
		n := 0
		for _, k := range args[1:] {
			if name == "EXISTS" {
				n += map[bool]int{true: 1}[st.exists(string(k))]
			} else {
				n += st.del(string(k))
			}
		}
		w.int(n)
	case "INCR", "DECR", "INCRBY", "DECRBY":
		n, _ := strconv.Atoi(string(st.str[a(1)]))
		d := atoiOr(a(2), 1)
		if strings.HasPrefix(name, "DECR") {
			d = -d
		}
		n += d
		if st.room(len(a(1)) + 20) {
			st.str[a(1)] = []byte(strconv.Itoa(n))
		}
		w.int(n)
	case "EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT", "PERSIST":
		w.int(map[bool]int{true: 1}[st.exists(a(1))])
	case "TTL", "PTTL":
		w.int(map[bool]int{true: -1, false: -2}[st.exists(a(1))])
	case "TYPE":
		w.simple(st.typeOf(a(1)))
	case "KEYS":
		w.bulks(st.match(a(1)))
	case "SCAN":
		w.array(2)
		w.bulk([]byte("0"))
		w.bulks(st.match(scanPattern(args)))
	case "DBSIZE":
		w.int(len(st.keys()))
	case "FLUSHDB", "FLUSHALL":
		st.str, st.hash, st.list, st.nbytes = nil, nil, nil, 0
		w.simple("OK")
	default:
		if !st.collection(w, name, args) {
			st.server(w, name, args)
		}
	}
}

func (st *redisStore) set(w *respWriter, name string, args [][]byte) {
	pairs := [][2][]byte{}
	switch {
	case name == "MSET":
		for i := 1; i+1 < len(args); i += 2 {
			pairs = append(pairs, [2][]byte{args[i], args[i+1]})
		}
	case (name == "SETEX" || name == "PSETEX") && len(args) > 3:
		pairs = append(pairs, [2][]byte{args[1], args[3]})
	case len(args) > 2:
		pairs = append(pairs, [2][]byte{args[1], args[2]})
	}
	for _, p := range pairs {
		k := string(p[0])
		if name == "SETNX" && st.exists(k) {
			w.int(0)
			return
		}
		old := len(st.str[k])
		if st.room(len(k) + len(p[1]) - old) {
			st.str[k] = append([]byte(nil), p[1]...)
			st.nbytes += len(k) + len(p[1]) - old
		}
	}
	if name == "SETNX" {
		w.int(1)
		return
	}
	w.simple("OK")
}

func (st *redisStore) typeOf(k string) string {
	if _, ok := st.str[k]; ok {
		return "string"
	}
	if _, ok := st.hash[k]; ok {
		return "hash"
	}
	if _, ok := st.list[k]; ok {
		return "list"
	}
	return "none"
}

func (st *redisStore) match(pattern string) [][]byte {
	if pattern == "" {
		pattern = "*"
	}
	var out [][]byte
	for _, k := range st.keys() {
		if ok, _ := path.Match(pattern, k); ok && len(out) < 1000 {
			out = append(out, []byte(k))
		}
	}
	return out
}

func scanPattern(args [][]byte) string {
	for i := 2; i+1 < len(args); i++ {
		if strings.EqualFold(string(args[i]), "MATCH") {
			return string(args[i+1])
		}
	}
	return "*"
}
