package sink

import (
	"slices"
	"strconv"
	"strings"
)

// collection answers hash and list commands; false if name is neither.
func (st *redisStore) collection(w *respWriter, name string, args [][]byte) bool {
	key := ""
	if len(args) > 1 {
		key = string(args[1])
	}
	switch name {
	case "HSET", "HMSET", "HSETNX":
		h := st.hash[key]
		if h == nil {
			if !st.room(len(key)) {
				w.int(0)
				return true
			}
			h = map[string][]byte{}
			st.hash[key] = h
		}
		n := 0
		for i := 2; i+1 < len(args); i += 2 {
			if _, ok := h[string(args[i])]; !ok {
				n++
			}
			if st.room(len(args[i]) + len(args[i+1])) {
				h[string(args[i])] = append([]byte(nil), args[i+1]...)
				st.nbytes += len(args[i]) + len(args[i+1])
			}
		}
		if name == "HMSET" {
			w.simple("OK")
		} else {
			w.int(n)
		}
	case "HGET":
		if b, ok := st.hash[key][argStr(args, 2)]; ok {
			w.bulk(b)
		} else {
			w.null()
		}
	case "HGETALL":
		h := st.hash[key]
		fields := sortedKeys(h)
		w.mapHead(len(fields))
		for _, f := range fields {
			w.bulk([]byte(f))
			w.bulk(h[f])
		}
	case "HKEYS", "HVALS", "HLEN":
		h := st.hash[key]
		fields := sortedKeys(h)
		switch name {
		case "HLEN":
			w.int(len(fields))
		case "HKEYS":
			w.array(len(fields))
			for _, f := range fields {
				w.bulk([]byte(f))
			}
		default:
			w.array(len(fields))
			for _, f := range fields {
				w.bulk(h[f])
			}
		}
	case "HDEL":
		n := 0
		for _, f := range args[min(2, len(args)):] {
			if _, ok := st.hash[key][string(f)]; ok {
				delete(st.hash[key], string(f))
				n++
			}
		}
		w.int(n)
	default:
		return st.listCommand(w, name, key, args)
	}
	return true
}

// listCommand answers list commands; false if name is none.
func (st *redisStore) listCommand(w *respWriter, name, key string, args [][]byte) bool {
	switch name {
	case "LPUSH", "RPUSH":
		for _, x := range args[min(2, len(args)):] {
			if !st.room(len(x) + len(key)) {
				break
			}
			st.nbytes += len(x)
			x = append([]byte(nil), x...)
			if name == "LPUSH" {
				st.list[key] = append([][]byte{x}, st.list[key]...)
			} else {
				st.list[key] = append(st.list[key], x)
			}
		}
		w.int(len(st.list[key]))
	case "LRANGE":
		l := st.list[key]
		a, b := listIndex(atoiOr(argStr(args, 2), 0), len(l)), listIndex(atoiOr(argStr(args, 3), -1), len(l))+1
		if a >= b {
			w.array(0)
		} else {
			w.bulks(l[a:min(b, len(l))])
		}
	case "LLEN":
		w.int(len(st.list[key]))
	case "LPOP", "RPOP":
		l := st.list[key]
		if len(l) == 0 {
			w.null()
			return true
		}
		if name == "LPOP" {
			w.bulk(l[0])
			st.list[key] = l[1:]
		} else {
			w.bulk(l[len(l)-1])
			st.list[key] = l[:len(l)-1]
		}
	default:
		return false
	}
	return true
}

func argStr(args [][]byte, i int) string {
	if i < len(args) {
		return string(args[i])
	}
	return ""
}

func listIndex(i, n int) int {
	if i < 0 {
		i += n
	}
	return min(max(i, 0), n)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// server answers connection and server commands: INFO (what ioredis's
// ready check reads), CLIENT, SELECT, COMMAND, CONFIG, PUBLISH; anything
// else +OK.
func (st *redisStore) server(w *respWriter, name string, args [][]byte) {
	sub := strings.ToUpper(argStr(args, 1))
	switch {
	case name == "INFO":
		w.bulk([]byte(strings.Join([]string{"# Server", "redis_version:" + redisVersion, "redis_mode:standalone", "os:Linux 6.1.0 x86_64",
			"arch_bits:64", "tcp_port:6379", "uptime_in_seconds:86400", "", "# Clients", "connected_clients:1", "",
			"# Memory", "used_memory:1048576", "maxmemory:0", "", "# Persistence", "loading:0", "", "# Replication", "role:master",
			"connected_slaves:0", "", "# Keyspace", "db0:keys=" + strconv.Itoa(len(st.keys())) + ",expires=0,avg_ttl=0", ""}, "\r\n")))
	case name == "CLIENT" && sub == "ID":
		w.int(1)
	case name == "CLIENT" && sub == "GETNAME":
		w.null()
	case name == "CLIENT" && sub == "LIST":
		w.bulk([]byte("id=1 addr=127.0.0.1:50000 name= db=0 cmd=client|list\n"))
	case name == "COMMAND" && sub == "COUNT", name == "PUBLISH", name == "WAIT":
		w.int(0)
	case name == "COMMAND", name == "CONFIG" && sub == "GET":
		if name == "CONFIG" {
			w.mapHead(0)
		} else {
			w.array(0)
		}
	case name == "TIME":
		w.bulks([][]byte{[]byte("1717243200"), []byte("0")})
	case name == "SUBSCRIBE" || name == "PSUBSCRIBE":
		for i, ch := range args[1:] {
			w.array(3)
			w.bulk([]byte(strings.ToLower(name)))
			w.bulk(ch)
			w.int(i + 1)
		}
	default:
		w.simple("OK")
	}
}
