package sink

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"
)

// TestRedisFakeAnswersGoRedis: go-redis, a real Redis client, logs in over
// RESP3 (HELLO 3 AUTH) and RESP2 (AUTH, SELECT), stores and reads back
// strings, hashes and lists, pipelines and runs a transaction; the fake
// records the user, the password as a secret and every command.
func TestRedisFakeAnswersGoRedis(t *testing.T) {
	fs := startFake(t, "cache.fixture.example", 6379)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, proto := range []int{3, 2} {
		t.Run("resp"+string(rune('0'+proto)), func(t *testing.T) {
			rdb := redis.NewClient(&redis.Options{Addr: fs.addr, Username: "audit", Password: "pw-resp" + string(rune('0'+proto)),
				Protocol: proto, DB: 1, DisableIdentity: proto == 2})
			defer rdb.Close()
			if err := rdb.Ping(ctx).Err(); err != nil {
				t.Fatalf("ping: %v", err)
			}
			key := "session:" + string(rune('0'+proto))
			if err := rdb.Set(ctx, key, "token-in-resp"+string(rune('0'+proto)), time.Hour).Err(); err != nil {
				t.Fatal(err)
			}
			if got, err := rdb.Get(ctx, key).Result(); err != nil || got != "token-in-resp"+string(rune('0'+proto)) {
				t.Errorf("get %q %v", got, err)
			}
			if _, err := rdb.Get(ctx, "missing").Result(); err != redis.Nil {
				t.Errorf("a missing key: %v", err)
			}
			rdb.HSet(ctx, "user:1", "name", "Alice", "role", "admin")
			if got, err := rdb.HGetAll(ctx, "user:1").Result(); err != nil || !cmp.Equal(got, map[string]string{"name": "Alice", "role": "admin"}) {
				t.Errorf("hgetall %v %v", got, err)
			}
			rdb.Del(ctx, "queue")
			rdb.RPush(ctx, "queue", "a", "b", "c")
			if got, err := rdb.LRange(ctx, "queue", 0, -1).Result(); err != nil || !cmp.Equal(got, []string{"a", "b", "c"}) {
				t.Errorf("lrange %v %v", got, err)
			}
			var incr *redis.IntCmd
			if _, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Del(ctx, "counter")
				incr = p.Incr(ctx, "counter")
				return nil
			}); err != nil || incr.Val() != 1 {
				t.Errorf("transaction: %v %v", incr.Val(), err)
			}
			if info, err := rdb.Info(ctx, "server").Result(); err != nil || len(info) == 0 {
				t.Errorf("info: %v", err)
			}
		})
	}
	got := fs.payloads(t)
	for _, want := range []string{
		"redis auth user=audit secret=pw-resp3",
		"redis auth user=audit secret=pw-resp2",
		"redis command user= secret= HELLO 3",
		"redis command user= secret= select 1",
		"redis command user= secret= set session:3 token-in-resp3 ex 3600",
		"redis command user= secret= hset user:1 name Alice role admin",
	} {
		if !hasPayload(got, want) {
			t.Errorf("no payload %q in\n%s", want, got)
		}
	}
}
