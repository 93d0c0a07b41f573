package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/chromedp/chromedp"
)

// ErrNoChromium: no Chromium binary was found (docs/tools.md "Browser", "What to install").
var ErrNoChromium = errors.New("no Chromium browser found: install Debian's chromium package (apt-get install chromium) or set BATON_CHROMIUM_PATH")

// chromiumNames are the executables FindChromium looks for on PATH, in order.
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome"}

// Viewport of a local browser: the AgentCore Browser's default (docs/tools.md "Browser"), so screenshots look
// alike with either provider.
const (
	ViewportWidth  = 1456
	ViewportHeight = 819
)

// FindChromium returns the Chromium executable the local provider runs: BATON_CHROMIUM_PATH when set (it must be
// an executable file), else the first of chromium, chromium-browser, google-chrome found on PATH. It returns an
// error wrapping ErrNoChromium when there is none.
func FindChromium(getenv func(string) string) (string, error) {
	if p := getenv("BATON_CHROMIUM_PATH"); p != "" {
		fi, err := os.Stat(p)
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return "", fmt.Errorf("%w: BATON_CHROMIUM_PATH %q is not an executable file", ErrNoChromium, p)
		}
		return p, nil
	}
	for _, n := range chromiumNames {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", ErrNoChromium
}

// Available reports whether this machine can run the local browser (FindChromium finds a Chromium). A runtime
// advertises the agentcore_browser capability with the local provider only when it is true.
func Available(getenv func(string) string) bool {
	_, err := FindChromium(getenv)
	return err == nil
}

// LocalConfig configures the local provider.
type LocalConfig struct {
	// ChromiumPath is the browser executable (FindChromium); required.
	ChromiumPath string
	// TempDir is where each browser's profile directory (user-data-dir) is made; "" = os.TempDir(). Each browser
	// gets its own directory, removed when the browser closes.
	TempDir string
}

// Local is the local provider: one headless Chromium process per browser (so Sessions share no cookies, storage
// or cache), with its own profile directory, an environment holding only PATH and HOME (the runtime's
// credentials and settings are not passed on) and all its traffic sent through the network guard. Chromium's own sandbox stays on, except when the runtime runs as
// root: Chromium refuses to start its sandbox as root, so there it runs with --no-sandbox and the page's isolation
// is the renderer process's alone (docs/tools.md "Browser").
type Local struct {
	cfg   LocalConfig
	guard *guardProxy
}

// NewLocal returns the local provider and starts its network guard (a proxy on a loopback port that all of every
// browser's traffic goes through, refusing link-local destinations; docs/tools.md "Browser",
// "Network"). Close stops the guard. Errors: an empty ChromiumPath, no loopback port for the guard.
func NewLocal(cfg LocalConfig) (*Local, error) {
	if cfg.ChromiumPath == "" {
		return nil, ErrNoChromium
	}
	g, err := startGuardProxy()
	if err != nil {
		return nil, err
	}
	return &Local{cfg: cfg, guard: g}, nil
}

// Close stops the network guard; call it after the pool over this provider is closed (browsers still open lose
// their network).
func (l *Local) Close() error {
	return l.guard.close()
}

var _ Provider = (*Local)(nil)

// Open starts a headless Chromium for key. The process starts on the tab's first action; its profile directory is
// made now. Errors: the profile directory cannot be made.
func (l *Local) Open(_ context.Context, _ Key) (Browser, error) {
	dir, err := os.MkdirTemp(l.cfg.TempDir, "baton-browser-")
	if err != nil {
		return Browser{}, fmt.Errorf("make the browser's profile directory: %w", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(l.cfg.ChromiumPath),
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
		chromedp.WindowSize(ViewportWidth, ViewportHeight),
		chromedp.NoInheritEnv,
		chromedp.Env("HOME="+dir, "PATH="+os.Getenv("PATH")),
		chromedp.ProxyServer(l.guard.url()),
		// Chromium sends loopback and link-local requests around a proxy unless told otherwise; "<-loopback>"
		// removes that exception, so every request meets the guard.
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		// WebRTC may not send UDP around the proxy.
		chromedp.Flag("force-webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		// No traffic of Chromium's own (component updates, sign-in, optimization hints, autofill, reporting).
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,OptimizationHints,OptimizationGuideModelDownloading,AutofillServerCommunication,MediaRouter,SigninInterception"),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	alloc, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	return Browser{
		Allocator: alloc,
		Close: func(context.Context) error {
			cancel() // kills Chromium and waits for it
			return os.RemoveAll(dir)
		},
	}, nil
}
