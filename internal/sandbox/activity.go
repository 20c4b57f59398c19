package sandbox

import (
	"context"

	"github.com/moby/moby/client"
)

// SinkLogSize returns the current size of the sink's event log, for
// settling a call: the sink writes what a connection carried after the
// traced connect, so a quiet trace alone does not mean the call's traffic
// is logged. ok is false without a sink or when the size is unknown.
func (r *Run) SinkLogSize(ctx context.Context) (size int64, ok bool) {
	if r.sink == nil {
		return 0, false
	}
	st, err := r.sb.Engine.ContainerStatPath(ctx, r.sink.id, client.ContainerStatPathOptions{Path: sinkLog})
	if err != nil {
		return 0, false
	}
	return st.Stat.Size, true
}
