package sink

import (
	"bytes"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcp-audit/mcp-audit/internal/sinklog"
	"github.com/miekg/dns"
)

func TestFakeIPAllocatesFromFakeNetInOrder(t *testing.T) {
	nt := newNameTable()
	got := []string{nt.fakeIP("a.example"), nt.fakeIP("b.example"), nt.fakeIP("a.example")}
	want := []string{"198.18.0.1", "198.18.0.2", "198.18.0.1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("addresses (-want +got):\n%s", diff)
	}
	if n := nt.nameOf("198.18.0.2"); n != "b.example" {
		t.Errorf("nameOf(198.18.0.2) = %q", n)
	}
	if n := nt.nameOf("198.18.0.9"); n != "" {
		t.Errorf("nameOf an unallocated address = %q", n)
	}
}

func TestFakeIPStaysInsideFakeNetAndWraps(t *testing.T) {
	fake := netip.MustParsePrefix(sinklog.FakeNet)
	nt := newNameTable()
	nt.next = 1<<17 - 3
	var got []string
	for _, name := range []string{"w1", "w2", "w3", "w4"} {
		ip := nt.fakeIP(name)
		if !fake.Contains(netip.MustParseAddr(ip)) {
			t.Errorf("%s got %s, outside %s", name, ip, sinklog.FakeNet)
		}
		got = append(got, ip)
	}
	// The last usable address is 198.19.255.254; after it allocation
	// starts again at .0.1 rather than hand out the broadcast address.
	want := []string{"198.19.255.253", "198.19.255.254", "198.18.0.1", "198.18.0.2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("addresses (-want +got):\n%s", diff)
	}
	if n := nt.nameOf("198.18.0.1"); n != "w3" {
		t.Errorf("after wrapping, 198.18.0.1 names %q, want the newest name", n)
	}
}

func TestRememberKeepsTheFirstName(t *testing.T) {
	nt := newNameTable()
	nt.remember("93.184.215.14", "example.com")
	nt.remember("93.184.215.14", "www.example.com")
	if n := nt.nameOf("93.184.215.14"); n != "example.com" {
		t.Errorf("nameOf = %q, want the first name an address was seen as", n)
	}
}

// fakeDNSWriter records the reply instead of sending it.
type fakeDNSWriter struct {
	dns.ResponseWriter // unused methods panic
	reply              *dns.Msg
}

func (w *fakeDNSWriter) RemoteAddr() net.Addr {
	return &net.UDPAddr{IP: net.IPv4(10, 0, 0, 2), Port: 40000}
}
func (w *fakeDNSWriter) WriteMsg(m *dns.Msg) error { w.reply = m; return nil }

func TestHandleDNSAnswersAWithFakeAddressesAndLogsEveryQuestion(t *testing.T) {
	var log bytes.Buffer
	s := &Sink{cfg: sinklog.Config{Mode: "sinkhole", Answer: []string{"example"}}, log: NewLog(&log, 0), names: newNameTable()}
	req := new(dns.Msg)
	req.Question = []dns.Question{
		{Name: "API.Mail.Example.", Qtype: dns.TypeA, Qclass: dns.ClassINET},
		{Name: "api.mail.example.", Qtype: dns.TypeAAAA, Qclass: dns.ClassINET},
		{Name: "odd.example.", Qtype: 65280, Qclass: dns.ClassINET},
		{Name: "chaos.example.", Qtype: dns.TypeA, Qclass: dns.ClassCHAOS},
	}
	w := &fakeDNSWriter{}
	s.handleDNS(w, req)

	if w.reply == nil || !w.reply.Authoritative || w.reply.Rcode != dns.RcodeSuccess {
		t.Fatalf("reply %v", w.reply)
	}
	var answers []string
	for _, rr := range w.reply.Answer {
		answers = append(answers, rr.String())
	}
	want := []string{"API.Mail.Example.\t60\tIN\tA\t198.18.0.1"}
	if diff := cmp.Diff(want, answers); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	evs, st := sinklog.Read(log.Bytes(), 0)
	if st.Malformed != 0 {
		t.Errorf("stats %+v", st)
	}
	for i := range evs {
		evs[i].Time = 0
	}
	src := "10.0.0.2:40000"
	wantEv := []sinklog.Event{
		{Kind: "dns", Name: "api.mail.example", QType: "A", Src: src, Answer: []string{"198.18.0.1"}},
		{Kind: "dns", Name: "api.mail.example", QType: "AAAA", Src: src},
		{Kind: "dns", Name: "odd.example", QType: "TYPE65280", Src: src},
		{Kind: "dns", Name: "chaos.example", QType: "A", Src: src},
	}
	if diff := cmp.Diff(wantEv, evs); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestHandleDNSBoundsQuestionsAndNames(t *testing.T) {
	var log bytes.Buffer
	s := &Sink{cfg: sinklog.Config{Mode: "sinkhole"}, log: NewLog(&log, 0), names: newNameTable()}
	req := new(dns.Msg)
	long := strings.Repeat("a", 300) + "."
	for range 20 {
		req.Question = append(req.Question, dns.Question{Name: long, Qtype: dns.TypeTXT, Qclass: dns.ClassINET})
	}
	s.handleDNS(&fakeDNSWriter{}, req)
	evs, _ := sinklog.Read(log.Bytes(), 0)
	if len(evs) != 8 {
		t.Errorf("%d events for 20 questions, want the first 8", len(evs))
	}
	for _, e := range evs {
		if len(e.Name) != 253 {
			t.Errorf("name of %d bytes, want it clipped to 253", len(e.Name))
		}
	}
}

// TestHandleDNSRefusesNamesNoResolverAnswers: special-use and unknown
// top-level domains get NXDOMAIN, as from a real resolver, and the
// question is still logged.
func TestHandleDNSRefusesNamesNoResolverAnswers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer []string
		rcode  int
	}{
		{"nx-probe.invalid.", nil, dns.RcodeNameError},
		{"collect.evil.example.", nil, dns.RcodeNameError},
		{"collect.evil.example.", []string{"example", "test"}, dns.RcodeSuccess},
		{"nx-probe.invalid.", []string{"example", "test"}, dns.RcodeNameError},
		{"api.vendor.com.", nil, dns.RcodeSuccess},
	} {
		var log bytes.Buffer
		s := &Sink{cfg: sinklog.Config{Mode: "sinkhole", Answer: tc.answer}, log: NewLog(&log, 0), names: newNameTable()}
		req := new(dns.Msg)
		req.SetQuestion(tc.name, dns.TypeA)
		w := &fakeDNSWriter{}
		s.handleDNS(w, req)
		if w.reply.Rcode != tc.rcode || (tc.rcode == dns.RcodeNameError) != (len(w.reply.Answer) == 0) {
			t.Errorf("%s with %q: rcode %d, %d answers; want rcode %d", tc.name, tc.answer, w.reply.Rcode, len(w.reply.Answer), tc.rcode)
		}
		evs, _ := sinklog.Read(log.Bytes(), 0)
		if len(evs) != 1 || evs[0].Name != strings.TrimSuffix(tc.name, ".") {
			t.Errorf("%s: events %+v, want the question logged", tc.name, evs)
		}
	}
}
