package sinklog

import (
	"bufio"
	"bytes"
	"encoding/json"
)

// ReadStats describes a sink log read back on the host.
type ReadStats struct {
	Events    int
	Malformed int
	Truncated bool // the sink reported its size limit, or MaxEvents hit
}

// Read parses a sink log. The log is written by the sink, but every field
// carries data chosen by the audited server, so lines are bounded and bad
// lines are counted and skipped.
func Read(data []byte, maxEvents int) ([]Event, ReadStats) {
	if maxEvents <= 0 {
		maxEvents = 200_000
	}
	var evs []Event
	var st ReadStats
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if len(evs) >= maxEvents {
			st.Truncated = true
			break
		}
		var e Event
		if err := json.Unmarshal(line, &e); err != nil || e.Kind == "" {
			st.Malformed++
			continue
		}
		if e.Kind == "error" && e.Error != "" && bytes.Contains(line, []byte("size limit")) {
			st.Truncated = true
		}
		evs = append(evs, e)
	}
	if sc.Err() != nil {
		st.Malformed++
	}
	st.Events = len(evs)
	return evs, st
}
