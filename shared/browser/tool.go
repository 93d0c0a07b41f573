package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/baton-run/baton/shared/harness"
)

// Limits of one browser action (docs/tools.md "Browser").
const (
	// DefaultTimeoutSeconds bounds an action whose call gives no timeout_seconds: loading a page, finding a
	// selector, typing.
	DefaultTimeoutSeconds = 30
	// MaxTimeoutSeconds is the largest timeout_seconds a call may ask for.
	MaxTimeoutSeconds = 120
	// MaxTextBytes bounds the page text get_text returns; longer text is cut at a UTF-8 boundary and ends with
	// the truncation marker.
	MaxTextBytes = 30_000
	// MaxScreenshotBytes bounds a screenshot's PNG; a larger one is an error result (model providers cap image
	// sizes at a few MB).
	MaxScreenshotBytes = 3 << 20
)

// Actions the tool accepts (the `action` member).
const (
	ActionNavigate   = "navigate"
	ActionGetText    = "get_text"
	ActionClick      = "click"
	ActionType       = "type"
	ActionWait       = "wait"
	ActionScreenshot = "screenshot"
)

// Session is the browser page of one Baton Session as the tool drives it: one tab, kept across the Session's
// turns (Pool.Session). Run opens the browser when the Session has none (bounded by the pool's OpenTimeout, not by
// timeout), then runs a chromedp action on the tab for at most timeout; ctx cancels either (the tab stays open).
// Run returns the action's error (wrapping context.DeadlineExceeded when timeout ran out), ErrTooManySessions,
// ErrClosed, or ErrNotStarted wrapping why the browser could not be opened. Calls of one Session are serialized.
type Session interface {
	Run(ctx context.Context, timeout time.Duration, action chromedp.Action[chromedp.Void]) error
}

// Tool returns the model-facing agentcore_browser tool driving s (docs/tools.md "Browser"). Its parameters are one
// flat object: `{"action": "navigate"|"get_text"|"click"|"type"|"wait"|"screenshot", "url", "selector", "text",
// "timeout_seconds"}`. A call that cannot be done — a missing member, a selector that matches no visible element
// within the timeout, a page that fails to load, a browser that cannot be started or has no free slot — is a
// result with IsError and a sentence saying why; Call returns an error only when ctx ends (the run is cancelled).
func Tool(s Session) harness.BuiltinTool {
	return &tool{s: s}
}

type tool struct {
	s Session
}

// toolDescription is what the model reads about the tool; keep it short (it is sent on every model request).
const toolDescription = "Drive a web browser whose page stays open across this session's turns. " +
	"Actions: navigate (url), get_text (the page's title, URL and visible text), click (selector), " +
	"type (selector, text: types into the element), wait (selector: until it is visible), " +
	"screenshot (an image of the visible part of the page). Selectors are CSS selectors. " +
	"timeout_seconds bounds the action (default 30, at most 120)."

// toolParameters is the JSON Schema of the tool's arguments.
var toolParameters = json.RawMessage(`{
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["navigate", "get_text", "click", "type", "wait", "screenshot"],
               "description": "What to do."},
    "url": {"type": "string", "description": "navigate: the absolute http or https URL to load."},
    "selector": {"type": "string", "description": "click, type, wait: a CSS selector of the element."},
    "text": {"type": "string", "description": "type: the text to type."},
    "timeout_seconds": {"type": "integer", "minimum": 1, "maximum": 120,
                        "description": "How long the action may take (default 30)."}
  },
  "required": ["action"],
  "additionalProperties": false
}`)

func (t *tool) Definition() harness.Tool {
	return harness.Tool{Description: toolDescription, Parameters: toolParameters}
}

// arguments are the tool's parameters as the model sends them.
type arguments struct {
	Action         string `json:"action"`
	URL            string `json:"url"`
	Selector       string `json:"selector"`
	Text           string `json:"text"`
	TimeoutSeconds int    `json:"timeout_seconds"`
}

// command renders a call as one line for the command_execution item: "browser navigate https://…",
// "browser type #name \"hello\"".
func (a arguments) command() string {
	parts := []string{"browser", a.Action}
	switch a.Action {
	case ActionNavigate:
		parts = append(parts, a.URL)
	case ActionClick, ActionWait:
		parts = append(parts, a.Selector)
	case ActionType:
		parts = append(parts, a.Selector, fmt.Sprintf("%q", a.Text))
	}
	return strings.Join(parts, " ")
}

// check returns the sentence the model reads when the arguments cannot make a call ("" when they can).
func (a arguments) check() string {
	switch a.Action {
	case ActionNavigate:
		if a.URL == "" {
			return "navigate needs a url"
		}
		u, err := url.Parse(a.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Sprintf("navigate needs an absolute http or https URL; %q is not one", a.URL)
		}
	case ActionClick, ActionWait:
		if a.Selector == "" {
			return a.Action + " needs a selector"
		}
	case ActionType:
		if a.Selector == "" || a.Text == "" {
			return "type needs a selector and a text"
		}
	case ActionGetText, ActionScreenshot:
	default:
		return fmt.Sprintf("unknown action %q; use navigate, get_text, click, type, wait or screenshot", a.Action)
	}
	if a.TimeoutSeconds < 0 || a.TimeoutSeconds > MaxTimeoutSeconds {
		return fmt.Sprintf("timeout_seconds must be between 1 and %d", MaxTimeoutSeconds)
	}
	return ""
}

func (t *tool) Call(ctx context.Context, raw json.RawMessage) (harness.BuiltinResult, error) {
	var a arguments
	if err := json.Unmarshal(raw, &a); err != nil {
		return harness.BuiltinResult{Output: "the arguments are not a JSON object of the browser's parameters: " + err.Error(),
			Command: "browser", IsError: true}, nil
	}
	res := harness.BuiltinResult{Command: a.command()}
	if msg := a.check(); msg != "" {
		res.Output, res.IsError = msg, true
		return res, nil
	}
	timeout := time.Duration(a.TimeoutSeconds) * time.Second
	if a.TimeoutSeconds == 0 {
		timeout = DefaultTimeoutSeconds * time.Second
	}

	var (
		title, location, text string
		shot                  []byte
		resp                  *network.Response
	)
	page := chromedp.Steps(into(&title, chromedp.Title()), into(&location, chromedp.Location()))
	sel := chromedp.CSS(a.Selector)
	var action chromedp.Action[chromedp.Void]
	switch a.Action {
	case ActionNavigate:
		action = chromedp.Steps(into(&resp, chromedp.NavigateResponse(a.URL)), page)
	case ActionGetText:
		action = chromedp.Steps(page, into(&text, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`)))
	case ActionClick:
		action = chromedp.Steps(chromedp.Click(sel), page)
	case ActionType:
		action = chromedp.Steps(typeInto(sel, a.Text), page)
	case ActionWait:
		action = chromedp.Steps(chromedp.WaitVisible(sel), page)
	case ActionScreenshot:
		action = chromedp.Steps(page, into(&shot, chromedp.CaptureScreenshot()))
	}
	if err := t.s.Run(ctx, timeout, action); err != nil {
		if ctx.Err() != nil {
			return harness.BuiltinResult{}, context.Cause(ctx)
		}
		for _, own := range []error{ErrNotStarted, ErrTooManySessions, ErrClosed, errFileInput} {
			if errors.Is(err, own) {
				res.Output, res.IsError = err.Error(), true
				return res, nil
			}
		}
		res.Output, res.IsError = failure(a, err, errors.Is(err, context.DeadlineExceeded), timeout), true
		return res, nil
	}

	switch a.Action {
	case ActionNavigate:
		if reason := guardReason(resp); reason != "" {
			res.Output, res.IsError = fmt.Sprintf("navigation to %s failed: %s", a.URL, reason), true
			return res, nil
		}
		status := ""
		if resp != nil && resp.Status != 0 {
			status = fmt.Sprintf("HTTP %d, ", resp.Status)
		}
		res.Output = fmt.Sprintf("Loaded %s (%stitle %q).", location, status, title)
	case ActionGetText:
		res.Output = truncate(fmt.Sprintf("Title: %s\nURL: %s\n\n%s", title, location, text), MaxTextBytes)
	case ActionClick:
		res.Output = fmt.Sprintf("Clicked %s. The page is %s (title %q).", a.Selector, location, title)
	case ActionType:
		res.Output = fmt.Sprintf("Typed %d characters into %s.", utf8.RuneCountInString(a.Text), a.Selector)
	case ActionWait:
		res.Output = fmt.Sprintf("%s is visible on %s.", a.Selector, location)
	case ActionScreenshot:
		cfg, err := png.DecodeConfig(bytes.NewReader(shot))
		switch {
		case err != nil:
			res.Output, res.IsError = "the browser returned a screenshot that is not a PNG image", true
		case len(shot) > MaxScreenshotBytes:
			res.Output, res.IsError = fmt.Sprintf("the screenshot is %d bytes, more than the %d allowed", len(shot), MaxScreenshotBytes), true
		default:
			res.Output = fmt.Sprintf("Screenshot of %s: %dx%d PNG, %d bytes.", location, cfg.Width, cfg.Height, len(shot))
			res.Images = []harness.Image{{MediaType: "image/png", Data: shot}}
		}
	}
	return res, nil
}

// errFileInput: type was aimed at a file input. Typing a path there would attach that file of the runtime's machine
// to the page (chromedp's SendKeys does exactly that), so it is refused.
var errFileInput = errors.New("type cannot fill a file input (uploading files is not supported)")

// typeInto waits for the first element matching sel to be visible, then types text into it as key events. A file
// input is refused with errFileInput.
func typeInto(sel chromedp.CSS, text string) chromedp.Action[chromedp.Void] {
	return chromedp.QueryAfter(sel, func(ctx context.Context, t *chromedp.Target, nodes []*chromedp.Node) (chromedp.Void, error) {
		if len(nodes) == 0 {
			return chromedp.Void{}, fmt.Errorf("no element matches %s", sel)
		}
		n := nodes[0]
		if strings.EqualFold(n.NodeName, "input") && strings.EqualFold(strings.TrimSpace(n.AttributeValue("type")), "file") {
			return chromedp.Void{}, errFileInput
		}
		return chromedp.KeyEventNode(n, text)(ctx, t)
	}, chromedp.NodeVisible)
}

// guardReason returns the network guard's reason when it answered the navigation itself (GuardHeader), else "".
func guardReason(resp *network.Response) string {
	if resp == nil {
		return ""
	}
	for k, v := range resp.Headers {
		if strings.EqualFold(k, GuardHeader) {
			if s, ok := v.(string); ok {
				return s
			}
		}
	}
	return ""
}

// into returns an action that runs a and stores its value in dst.
func into[T any](dst *T, a chromedp.Action[T]) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		v, err := a(ctx, t)
		*dst = v
		return err
	})
}

// failure is the sentence the model reads when an action failed: timedOut means the action's own timeout ran out.
func failure(a arguments, err error, timedOut bool, timeout time.Duration) string {
	secs := int(timeout / time.Second)
	if timedOut {
		switch a.Action {
		case ActionClick, ActionType, ActionWait:
			return fmt.Sprintf("no visible element matches the selector %s within %d seconds", a.Selector, secs)
		case ActionNavigate:
			return fmt.Sprintf("%s did not finish loading within %d seconds", a.URL, secs)
		}
		return fmt.Sprintf("%s did not finish within %d seconds", a.Action, secs)
	}
	if a.Action == ActionNavigate {
		return fmt.Sprintf("navigation to %s failed: %v", a.URL, err)
	}
	return fmt.Sprintf("%s failed: %v", a.Action, err)
}

// truncate returns s when it has at most limit bytes, else its first bytes (cut at a UTF-8 boundary) followed by
// a marker saying how much was shown; the result has at most limit bytes plus the marker.
func truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[truncated: %d of %d bytes shown]", cut, len(s))
}
