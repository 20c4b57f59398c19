package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
)

// subscriptions/listen (2026-07-28): one long-lived request whose stream
// carries the change notifications the client opted in to. They reach
// Options.Observe as notifications (Source SourceListen), so list_changed
// is seen exactly as on a 2025 session.

// ListenFilter is what a subscriptions/listen opts in to.
type ListenFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

// AllChanges opts in to every list change and to updates of uris.
func AllChanges(uris ...string) ListenFilter {
	return ListenFilter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true, ResourceSubscriptions: uris}
}

// Subscription is an open subscriptions/listen request.
type Subscription struct {
	c    *Client
	key  string
	done chan struct{}

	mu       sync.Mutex
	acked    *ListenFilter
	ackCh    chan struct{}
	graceful bool
	err      error
}

// Listen opens a subscription and waits, within ctx, for the server's
// acknowledgement. The subscription lives until Close, the server ending
// it, or the session ending; ctx bounds only the wait for the ack.
func (c *Client) Listen(ctx context.Context, f ListenFilter) (*Subscription, error) {
	if c.Era() != EraModern {
		return nil, errors.New("subscriptions/listen needs a 2026-07-28 session")
	}
	s := &Subscription{c: c, done: make(chan struct{}), ackCh: make(chan struct{})}
	c.mu.Lock()
	c.next++
	id := c.next
	s.key = idKey(mustJSON(id))
	if len(c.listens) < maxListens {
		// Kept after the subscription ends: a notification it carried may
		// still be on its way to the reader.
		c.listens[s.key] = true
	}
	c.subs = append(pruneSubs(c.subs), s)
	c.mu.Unlock()
	_, ch, err := c.start(id, "subscriptions/listen", map[string]any{"notifications": f})
	if err != nil {
		return nil, err
	}
	go s.wait(ch)
	select {
	case <-s.ackCh:
		return s, nil
	case <-s.done:
		return nil, s.Err()
	case <-ctx.Done():
		s.Close()
		return nil, ctx.Err()
	}
}

// wait ends the subscription when its request is answered: a result is
// the server's graceful close, an error a refusal.
func (s *Subscription) wait(ch chan response) {
	r, ok := <-ch
	s.mu.Lock()
	switch {
	case !ok:
		s.err = ErrClosed
	case r.err != nil:
		s.err = r.err
	default:
		s.graceful = true
	}
	s.mu.Unlock()
	close(s.done)
}

// Acknowledged is the filter the server agreed to honour (nil before the
// acknowledgement).
func (s *Subscription) Acknowledged() *ListenFilter {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.acked
}

// Done is closed when the subscription ended.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Err is why it ended: nil for the server's graceful close (or not ended).
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close ends the subscription from the client's side: by closing its
// HTTP stream, or with notifications/cancelled on stdio.
func (s *Subscription) Close() {
	select {
	case <-s.done:
		return
	default:
	}
	s.c.forgetKey(s.key)
	s.c.cancel(s.key, "client closed the subscription")
}

// maxSubs bounds the subscriptions one client keeps track of; maxListens
// the listen ids it tags notifications by.
const (
	maxSubs    = 16
	maxListens = 64
)

// pruneSubs drops ended subscriptions, and the oldest beyond maxSubs.
func pruneSubs(subs []*Subscription) []*Subscription {
	out := subs[:0]
	for _, s := range subs {
		select {
		case <-s.done:
		default:
			out = append(out, s)
		}
	}
	if len(out) >= maxSubs {
		out = out[len(out)-maxSubs+1:]
	}
	return out
}

// acknowledge records a notifications/subscriptions/acknowledged for the
// subscription it names.
func (c *Client) acknowledge(params json.RawMessage) {
	var p struct {
		Meta          map[string]json.RawMessage `json:"_meta"`
		Notifications ListenFilter               `json:"notifications"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	key := idKey(p.Meta[MetaSubscriptionID])
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.subs {
		if s.key != key {
			continue
		}
		s.mu.Lock()
		if s.acked == nil {
			f := p.Notifications
			if len(f.ResourceSubscriptions) > 100 {
				f.ResourceSubscriptions = f.ResourceSubscriptions[:100]
			}
			s.acked = &f
			close(s.ackCh)
		}
		s.mu.Unlock()
	}
}
