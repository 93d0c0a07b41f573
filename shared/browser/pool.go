package browser

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/harness"
)

// Pool errors, read by the model as error results.
var (
	// ErrTooManySessions: MaxSessions browsers are open and each is running an action, so no idle one can be
	// closed to make room.
	ErrTooManySessions = errors.New("the browser is not available: every browser slot of this runtime is busy; try again later")
	// ErrClosed: the pool was closed (the runtime is shutting down).
	ErrClosed = errors.New("the browser is not available: the runtime is shutting down")
	// ErrNotStarted wraps a provider's failure to open a browser (no Chromium process, StartBrowserSession refused,
	// the automation stream not reachable) or OpenTimeout running out while it starts.
	ErrNotStarted = errors.New("the browser could not be started")
)

// Pool defaults (docs/tools.md "Browser").
const (
	// DefaultIdleSeconds is how long a Session's browser stays open without an action (BATON_BROWSER_IDLE_SECONDS).
	DefaultIdleSeconds = 600
	// DefaultMaxSessions bounds the browsers one runtime keeps open (BATON_BROWSER_MAX_SESSIONS).
	DefaultMaxSessions = 4
	// DefaultOpenTimeout bounds starting one browser (a local Chromium, or an AWS session and its stream).
	DefaultOpenTimeout = 60 * time.Second
)

// Key names one browser of the pool: the Baton Session and the browser_arn of the declaration that asked for it
// ("" = the built-in browser). A Session with two browser declarations of different ARNs has two browsers.
type Key struct {
	SessionID  string
	BrowserARN string
}

// Provider opens browsers (docs/tools.md "Browser", "Providers"): Local runs headless Chromium on this machine,
// package awsbrowser starts AgentCore Browser sessions. Open starts one browser for key and returns it; ctx bounds
// the start only, the browser lives until its Close. Errors name what failed (no Chromium, StartBrowserSession
// refused) and never contain credentials.
type Provider interface {
	Open(ctx context.Context, key Key) (Browser, error)
}

// Browser is one opened browser: Allocator is a chromedp allocator context (chromedp.NewContext on it opens the
// tab the Session uses) and Close ends the browser — kills the local Chromium and removes its profile directory,
// or stops the AWS session. Close is called once, after the tab's context is cancelled.
type Browser struct {
	Allocator context.Context
	Close     func(ctx context.Context) error
}

// Config is the pool's settings; zero values mean the defaults.
type Config struct {
	// IdleTimeout closes a Session's browser after this long without an action (0 = DefaultIdleSeconds).
	IdleTimeout time.Duration
	// MaxSessions bounds the open browsers (0 = DefaultMaxSessions). When it is reached, opening another closes
	// the least recently used idle one; when none is idle the call fails with ErrTooManySessions.
	MaxSessions int
	// OpenTimeout bounds starting one browser (0 = DefaultOpenTimeout).
	OpenTimeout time.Duration
	// Clock returns the current time (nil = time.Now).
	Clock func() time.Time
}

// LoadConfig reads the pool's settings from the environment (docs/tools.md "Browser"):
// BATON_BROWSER_IDLE_SECONDS (default 600) and BATON_BROWSER_MAX_SESSIONS (default 4); unset means the default.
// It returns an error naming the setting when a value is not a positive integer.
func LoadConfig(getenv func(string) string) (Config, error) {
	var cfg Config
	for _, s := range []struct {
		name string
		set  func(int)
	}{
		{"BATON_BROWSER_IDLE_SECONDS", func(n int) { cfg.IdleTimeout = time.Duration(n) * time.Second }},
		{"BATON_BROWSER_MAX_SESSIONS", func(n int) { cfg.MaxSessions = n }},
	} {
		v := getenv(s.name)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return Config{}, fmt.Errorf("%s must be a positive integer, not %q", s.name, v)
		}
		s.set(n)
	}
	return cfg, nil
}

// Pool keeps one browser tab per Key for the runtime's lifetime: opened on a Session's first action, reused by
// its later actions and turns (whatever Tool instance runs them), closed after IdleTimeout without an action, when
// evicted to make room (MaxSessions) or by Close. It is safe for concurrent use. A browser that died (Chromium
// crashed, the AWS stream closed) is reopened on the next action, with a blank page.
type Pool struct {
	provider Provider
	cfg      Config

	mu      sync.Mutex
	entries map[Key]*entry
	closed  bool

	stop chan struct{}
	done chan struct{}
}

// entry is one Key's browser. users and lastUsed are guarded by Pool.mu; the browser fields by holding sem.
type entry struct {
	key      Key
	users    int
	lastUsed time.Time

	sem       chan struct{}
	tab       context.Context
	cancelTab context.CancelFunc
	browser   Browser
}

// NewPool returns a pool over provider and starts its idle sweeper; Close stops it.
func NewPool(provider Provider, cfg Config) *Pool {
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleSeconds * time.Second
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.OpenTimeout <= 0 {
		cfg.OpenTimeout = DefaultOpenTimeout
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	p := &Pool{provider: provider, cfg: cfg, entries: map[Key]*entry{}, stop: make(chan struct{}), done: make(chan struct{})}
	go p.sweeper()
	return p
}

// Session returns the browser Session of key; it opens nothing until its first Run.
func (p *Pool) Session(key Key) Session {
	return &pooled{p: p, key: key}
}

// Tools returns the agentcore_browser tools of one Session's configuration, keyed by declared name
// (agent.Config.HostedTools of type agent.ToolBrowser), each driving the pool's browser for (sessionID, its
// browser_arn). nil when the configuration declares none.
func (p *Pool) Tools(sessionID string, cfg agent.Config) map[string]harness.BuiltinTool {
	var out map[string]harness.BuiltinTool
	for _, h := range cfg.HostedTools() {
		if h.Type != agent.ToolBrowser {
			continue
		}
		if out == nil {
			out = map[string]harness.BuiltinTool{}
		}
		out[h.Name] = Tool(p.Session(Key{SessionID: sessionID, BrowserARN: h.ARN}))
	}
	return out
}

// Close closes every browser (waiting, up to ctx, for a running action to end) and stops the sweeper. Later
// actions fail with ErrClosed. It returns the first browser's Close error.
func (p *Pool) Close(ctx context.Context) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	var all []*entry
	for k, e := range p.entries {
		all = append(all, e)
		delete(p.entries, k)
	}
	p.mu.Unlock()
	close(p.stop)
	<-p.done
	var first error
	for _, e := range all {
		held := false
		select {
		case e.sem <- struct{}{}:
			held = true
		case <-ctx.Done():
		}
		if err := e.shut(ctx); err != nil && first == nil {
			first = err
		}
		if held {
			<-e.sem
		}
	}
	return first
}

// open returns the number of keys with a browser entry (for tests).
func (p *Pool) open() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.entries)
}

// sweeper closes idle browsers until Close.
func (p *Pool) sweeper() {
	defer close(p.done)
	every := min(max(p.cfg.IdleTimeout/4, time.Second), time.Minute)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.sweep(p.cfg.Clock())
		}
	}
}

// sweep closes every browser that no action is using and whose last action ended IdleTimeout or more before now.
func (p *Pool) sweep(now time.Time) {
	p.mu.Lock()
	var idle []*entry
	for k, e := range p.entries {
		if e.users == 0 && now.Sub(e.lastUsed) >= p.cfg.IdleTimeout {
			idle = append(idle, e)
			delete(p.entries, k)
		}
	}
	p.mu.Unlock()
	for _, e := range idle {
		e.shutBounded()
	}
}

// acquire returns key's entry marked as used, creating it (and evicting the least recently used idle entry when the
// pool is full).
func (p *Pool) acquire(key Key) (*entry, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	e, ok := p.entries[key]
	var evicted *entry
	if !ok {
		if len(p.entries) >= p.cfg.MaxSessions {
			for _, c := range p.entries {
				if c.users == 0 && (evicted == nil || c.lastUsed.Before(evicted.lastUsed)) {
					evicted = c
				}
			}
			if evicted == nil {
				p.mu.Unlock()
				return nil, ErrTooManySessions
			}
			delete(p.entries, evicted.key)
		}
		e = &entry{key: key, sem: make(chan struct{}, 1)}
		p.entries[key] = e
	}
	e.users++
	p.mu.Unlock()
	if evicted != nil {
		evicted.shutBounded()
	}
	return e, nil
}

// release marks one use of e as ended.
func (p *Pool) release(e *entry) {
	p.mu.Lock()
	e.users--
	e.lastUsed = p.cfg.Clock()
	p.mu.Unlock()
}

// ensure opens e's browser and tab when it has none or they died. The caller holds e.sem.
func (p *Pool) ensure(ctx context.Context, e *entry) error {
	if e.tab != nil && e.tab.Err() == nil {
		return nil
	}
	if e.tab != nil {
		_ = e.shut(ctx)
	}
	octx, cancel := context.WithTimeout(ctx, p.cfg.OpenTimeout)
	defer cancel()
	// A browser the provider opened but that died while it started (Chromium crashing at launch on a loaded
	// machine) is started again, up to StartAttempts times within OpenTimeout; a provider that refuses to open one
	// (no Chromium, StartBrowserSession refused) is not asked again in this call. The last failure is reported.
	var err error
	for attempt := 0; attempt < StartAttempts; attempt++ {
		var opened bool
		if opened, err = p.start(octx, e); err == nil || !opened || octx.Err() != nil {
			break
		}
	}
	return err
}

// StartAttempts is how many times ensure tries to start a Session's browser before reporting ErrNotStarted.
const StartAttempts = 3

// start opens one browser and its tab for e (see ensure); opened reports whether the provider opened a browser
// (the failure, if any, came after).
func (p *Pool) start(octx context.Context, e *entry) (opened bool, err error) {
	b, err := p.provider.Open(octx, e.key)
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrNotStarted, err)
	}
	tab, cancelTab := chromedp.NewContext(b.Allocator)
	// The first Run on the tab's own context starts the browser and opens the tab; it must not run under a
	// deadline (that would close the tab when it ends), so it is bounded from outside. It also sets the tab's
	// viewport to the documented ViewportWidth×ViewportHeight: a window of that size leaves a smaller viewport
	// (the window's own frame takes its share), and the screenshot is the viewport.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(tab, chromedp.EmulateViewport(ViewportWidth, ViewportHeight)) }()
	select {
	case err = <-started:
	case <-octx.Done():
		err = context.Cause(octx)
	}
	if err != nil {
		cancelTab()
		cctx, cancelClose := context.WithTimeout(context.Background(), closeTimeout)
		defer cancelClose()
		_ = b.Close(cctx)
		return true, fmt.Errorf("%w: %w", ErrNotStarted, err)
	}
	e.tab, e.cancelTab, e.browser = tab, cancelTab, b
	return true, nil
}

// shut closes e's tab and browser, if open. The caller holds e.sem or has removed e from the pool with no users.
func (e *entry) shut(ctx context.Context) error {
	if e.tab == nil {
		return nil
	}
	e.cancelTab()
	err := e.browser.Close(ctx)
	e.tab, e.cancelTab, e.browser = nil, nil, Browser{}
	return err
}

// closeTimeout bounds closing a browser the pool drops on its own (idle, evicted).
const closeTimeout = 30 * time.Second

// shutBounded shuts e within closeTimeout; a failure to close is not reported (the browser is gone for the pool).
func (e *entry) shutBounded() {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	_ = e.shut(ctx)
}

// pooled is the Session of one Key.
type pooled struct {
	p   *Pool
	key Key
}

func (s *pooled) Run(ctx context.Context, timeout time.Duration, action chromedp.Action[chromedp.Void]) error {
	e, err := s.p.acquire(s.key)
	if err != nil {
		return err
	}
	defer s.p.release(e)
	select {
	case e.sem <- struct{}{}:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	defer func() { <-e.sem }()
	s.p.mu.Lock()
	closed := s.p.closed
	s.p.mu.Unlock()
	if closed {
		return ErrClosed
	}
	if err := s.p.ensure(ctx, e); err != nil {
		return err
	}
	// The action runs on a child of the tab's context that ends with ctx or at the timeout; ending it leaves the
	// tab open.
	rctx, cancel := context.WithCancelCause(e.tab)
	defer cancel(nil)
	stop := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	defer stop()
	rctx, cancelTimeout := context.WithTimeout(rctx, timeout)
	defer cancelTimeout()
	return chromedp.Do(rctx, action)
}
