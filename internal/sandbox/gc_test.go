package sandbox

import (
	"os"
	"strconv"
	"testing"
	"time"
)

func TestStale(t *testing.T) {
	now := time.Unix(1000, 0)
	me := strconv.Itoa(os.Getpid())
	for _, tc := range []struct {
		labels map[string]string
		want   bool
	}{
		{map[string]string{LabelOwner: "h:" + me, LabelDeadline: "2000"}, false},
		{map[string]string{LabelOwner: "h:" + me, LabelDeadline: "999"}, true},      // past its deadline
		{map[string]string{LabelOwner: "h:999999999", LabelDeadline: "2000"}, true}, // owner gone
		{map[string]string{LabelOwner: "other:1", LabelDeadline: "2000"}, false},    // another host's run
		{map[string]string{LabelOwner: "h:x"}, true},
	} {
		if got := stale(tc.labels, "h", now); got != tc.want {
			t.Errorf("stale(%v) = %v, want %v", tc.labels, got, tc.want)
		}
	}
}
