package testenv

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Browser is a headless Chromium a test drives: it opens a local page,
// clicks, reads values through JavaScript, and saves screenshots as test
// artifacts (go test -artifacts keeps them).
type Browser struct {
	t       testing.TB
	ctx     context.Context
	mu      sync.Mutex
	console []string
}

// Browse opens file (a local page) in a fresh headless Chromium, talked to
// through a pipe, with background networking off, and waits until an
// element matching ready is visible (a page with a script sets
// body[data-ready="1"] when it is done).
func Browse(t testing.TB, file, ready string) *Browser {
	t.Helper()
	bin := Chromium(t)
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("dns-prefetch-disable", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 1800))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 120*time.Second)
	t.Cleanup(func() { cancelTime(); cancelCtx(); cancelAlloc() })
	b := &Browser{t: t, ctx: ctx}
	b.do(chromedp.Navigate("about:blank"))
	messages := chromedp.Console(ctx)
	go func() {
		for msg, err := range messages {
			if err != nil {
				return
			}
			if msg.Type == chromedp.ConsoleError || msg.Type == chromedp.ConsoleException || msg.Type == chromedp.ConsoleWarning {
				b.mu.Lock()
				b.console = append(b.console, string(msg.Type)+": "+msg.Text)
				b.mu.Unlock()
			}
		}
	}()
	b.do(chromedp.Navigate("file://"+abs), chromedp.WaitVisible(chromedp.CSS(ready)))
	return b
}

// Console is what the page logged as warnings, errors and exceptions.
func (b *Browser) Console() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.console...)
}

func (b *Browser) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatalf("chromium: %v", err)
	}
}

// Click clicks the first element matching a CSS selector.
func (b *Browser) Click(selector string) {
	b.t.Helper()
	b.do(chromedp.Click(chromedp.CSS(selector)))
}

// Eval evaluates a JavaScript expression in the page and decodes its JSON
// value into out.
func (b *Browser) Eval(expr string, out any) {
	b.t.Helper()
	raw, err := chromedp.Run(b.ctx, chromedp.Evaluate[json.RawMessage]("JSON.stringify("+expr+")"))
	if err != nil {
		b.t.Fatalf("chromium: evaluating %s: %v", expr, err)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		b.t.Fatalf("chromium: %s: %v", expr, err)
	}
	if err := json.Unmarshal([]byte(s), out); err != nil {
		b.t.Fatalf("chromium: %s = %s: %v", expr, s, err)
	}
}

// Count is the number of elements matching a CSS selector that are shown
// (neither they nor an ancestor hidden).
func (b *Browser) Count(selector string) int {
	b.t.Helper()
	var n int
	b.Eval(`[...document.querySelectorAll(`+jsString(selector)+`)].filter(e => e.getClientRects().length > 0).length`, &n)
	return n
}

// Screenshot saves a full-page PNG under the test's artifact directory
// and returns it.
func (b *Browser) Screenshot(name string) []byte {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("chromium: screenshot: %v", err)
	}
	dir := b.t.(interface{ ArtifactDir() string }).ArtifactDir()
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	return png
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	out := []byte{'"'}
	for _, r := range s {
		switch r {
		case '"', '\\':
			out = append(out, '\\', byte(r))
		default:
			out = append(out, string(r)...)
		}
	}
	return string(append(out, '"'))
}
