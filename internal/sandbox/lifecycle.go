package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
)

// Sandbox creates runs on an engine.
type Sandbox struct {
	Engine Engine
	Log    *slog.Logger
}

func (s *Sandbox) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.New(slog.DiscardHandler)
}

// Start creates the container, copies everything in, attaches to its
// standard streams and starts it. On error nothing is left behind.
func (s *Sandbox) Start(ctx context.Context, spec Spec) (_ *Run, err error) {
	profile, err := SeccompProfile()
	if err != nil {
		return nil, err
	}
	sr, err := s.sinkFor(ctx, spec)
	if err != nil {
		return nil, err
	}
	r, err := s.create(ctx, spec, sr, profile)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			r.Remove()
		}
	}()
	if err := s.copyIn(ctx, r.ID, spec); err != nil {
		return nil, err
	}
	if err := r.attach(ctx); err != nil {
		return nil, err
	}
	// The server must not run before the sink can see its first packet.
	if err := sr.await(ctx); err != nil {
		return nil, err
	}
	if err := r.start(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// create creates the server container. Until it exists the sink is not
// owned by a Run, so a failure here removes the sink itself.
func (s *Sandbox) create(ctx context.Context, spec Spec, sr *sinkRun, profile string) (*Run, error) {
	var sinkID string
	if sr != nil {
		sinkID = sr.id
	}
	t0 := time.Now()
	opts := createOptions(spec, networkFor(sinkID), profile, ownerLabels(spec.Limits.withDefaults().Deadline))
	created, err := s.Engine.ContainerCreate(ctx, opts)
	if err != nil {
		if sr != nil {
			s.removeID(sr.id)
		}
		return nil, fmt.Errorf("creating sandbox container: %w", err)
	}
	s.log().Debug("container created", "ms", time.Since(t0).Milliseconds())
	r := &Run{sb: s, ID: created.ID, stderr: NewTail(64 << 10), done: make(chan struct{}), sink: sr, coverageDir: spec.CoverageDir}
	r.errOut = r.stderr
	if spec.Stderr != nil {
		r.errOut = io.MultiWriter(r.stderr, spec.Stderr)
	}
	return r, nil
}

// start starts the attached container. The wait is registered first so
// that a server which exits at once is still seen exiting; it outlives
// ctx so that Done closes even after cancellation.
func (r *Run) start(ctx context.Context) error {
	e := r.sb.Engine
	wait := e.ContainerWait(context.WithoutCancel(ctx), r.ID, client.ContainerWaitOptions{Condition: container.WaitConditionNextExit})
	r.Started = time.Now()
	if _, err := e.ContainerStart(ctx, r.ID, client.ContainerStartOptions{}); err != nil {
		return fmt.Errorf("starting sandbox: %w", err)
	}
	r.sb.log().Debug("container start returned", "ms", time.Since(r.Started).Milliseconds())
	go func() {
		select {
		case <-wait.Result:
		case err := <-wait.Error:
			r.waitErr = err
		}
		close(r.done)
	}()
	r.sb.log().Debug("sandbox started", "container", shortID(r.ID))
	return nil
}

// Stop ends the run: it closes the server's stdin, gives it grace to exit
// on its own, then asks the entrypoint to kill every process of the server
// user, and finally kills the container. It returns once the container
// has exited.
func (r *Run) Stop(ctx context.Context, grace time.Duration) error {
	t0 := time.Now()
	_ = r.CloseStdin()
	if r.waitDone(ctx, grace) {
		r.sb.log().Debug("server exited after stdin closed", "ms", time.Since(t0).Milliseconds())
		return nil
	}
	_, _ = r.sb.Engine.ContainerKill(context.WithoutCancel(ctx), r.ID, client.ContainerKillOptions{Signal: "TERM"})
	if r.waitDone(ctx, 10*time.Second) {
		r.sb.log().Debug("server stopped by the entrypoint", "ms", time.Since(t0).Milliseconds())
		return nil
	}
	r.Forced = true
	_, _ = r.sb.Engine.ContainerKill(context.WithoutCancel(ctx), r.ID, client.ContainerKillOptions{Signal: "KILL"})
	if r.waitDone(context.WithoutCancel(ctx), 10*time.Second) {
		return nil
	}
	return errors.New("sandbox container did not stop")
}

func (r *Run) waitDone(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.done:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// State is how the container ended.
type State struct {
	OOMKilled bool
	ExitCode  int
}

// State inspects the exited container.
func (r *Run) State(ctx context.Context) (State, error) {
	res, err := r.sb.Engine.ContainerInspect(ctx, r.ID, client.ContainerInspectOptions{})
	if err != nil {
		return State{}, fmt.Errorf("inspecting sandbox: %w", err)
	}
	st := State{}
	if s := res.Container.State; s != nil {
		st.OOMKilled, st.ExitCode = s.OOMKilled, s.ExitCode
	}
	return st, nil
}

// Remove deletes the container. It uses its own short context so that it
// still works after the caller's context was cancelled (Ctrl-C).
func (r *Run) Remove() {
	r.once.Do(func() {
		if r.hijack != nil {
			r.hijack.Close()
		}
		// The sink goes at the same time: both removals are engine work
		// the audit otherwise waits on one after the other.
		sinkGone := make(chan struct{})
		go func() {
			defer close(sinkGone)
			if r.sink != nil {
				if r.sink.hijack != nil {
					r.sink.hijack.Close()
				}
				r.sb.removeID(r.sink.id)
			}
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := r.sb.Engine.ContainerRemove(ctx, r.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
		if err != nil && !isNotFound(err) {
			r.sb.log().Warn("removing sandbox container", "container", shortID(r.ID), "err", err)
		}
		<-sinkGone
	})
}

func isNotFound(err error) bool {
	if err == nil {
		return false
	}
	if cerrdefs.IsNotFound(err) {
		return true
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "no such") || strings.Contains(msg, "not found")
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// FastClock starts the clock shim's fast phase: the entrypoint rewrites the
// rate file the server's libfaketime re-reads (at most every
// ClockNoticeMax) from real time to the run's ClockRate. It does
// nothing in a run without the shim.
func (r *Run) FastClock(ctx context.Context) error {
	if _, err := r.sb.Engine.ContainerKill(ctx, r.ID, client.ContainerKillOptions{Signal: "USR1"}); err != nil {
		return fmt.Errorf("switching the sandbox's clock: %w", err)
	}
	return nil
}
