package classify

import (
	"strconv"
	"strings"
)

type dnsQuestion struct {
	name  string
	qtype string
}

var dnsTypes = map[uint16]string{1: "A", 2: "NS", 5: "CNAME", 6: "SOA", 12: "PTR", 15: "MX", 16: "TXT",
	28: "AAAA", 33: "SRV", 64: "SVCB", 65: "HTTPS", 255: "ANY"}

// decodeDNSQuestions reads the question section of a DNS query in wire
// format. It is strict about bounds and gives up on anything odd: the
// buffer comes from the sandbox.
func decodeDNSQuestions(b []byte) []dnsQuestion {
	if len(b) < 12 {
		return nil
	}
	qd := int(b[4])<<8 | int(b[5])
	if b[2]&0x80 != 0 || qd == 0 || qd > 8 { // a response, or nonsense
		return nil
	}
	var out []dnsQuestion
	off := 12
	for range qd {
		var labels []string
		total := 0
		for {
			if off >= len(b) {
				return out
			}
			n := int(b[off])
			off++
			if n == 0 {
				break
			}
			if n > 63 || off+n > len(b) || total+n+1 > 255 {
				return out
			}
			labels = append(labels, sanitizeLabel(b[off:off+n]))
			total += n + 1
			off += n
		}
		if off+4 > len(b) {
			return out
		}
		t := uint16(b[off])<<8 | uint16(b[off+1])
		off += 4
		name := strings.ToLower(strings.Join(labels, "."))
		if name == "" {
			name = "."
		}
		qt, ok := dnsTypes[t]
		if !ok {
			qt = "TYPE" + strconv.Itoa(int(t))
		}
		out = append(out, dnsQuestion{name: name, qtype: qt})
	}
	return out
}

// sanitizeLabel keeps a label printable; other bytes become \DDD as in
// presentation format.
func sanitizeLabel(l []byte) string {
	var sb strings.Builder
	for _, c := range l {
		if c > 0x20 && c < 0x7f && c != '.' && c != '\\' {
			sb.WriteByte(c)
		} else {
			sb.WriteString("\\" + strconv.Itoa(int(c)))
		}
	}
	return sb.String()
}
