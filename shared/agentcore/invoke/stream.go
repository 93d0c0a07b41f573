package invoke

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/baton-run/baton/shared/agentcore/frames"
	"github.com/baton-run/baton/shared/session"
)

// streamBatch is how many events one read returns.
const streamBatch = 100

// stream answers 200 and writes the Turn's output as frames until the Turn pauses or ends, the client goes away
// (the Turn goes on), or MaxStreamDuration elapses (messageStop `partial_turn`).
func (h *Handler) stream(w http.ResponseWriter, r *http.Request, inv *invocation, turnID string, start time.Time) {
	ctx := r.Context()
	w.Header().Set("Content-Type", frames.ContentType)
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	fw := frames.NewWriter(w, func() error {
		if err := rc.Flush(); err != nil && err != http.ErrNotSupported {
			return err
		}
		return nil
	})
	t := &translator{out: fw, turnID: turnID, blocks: map[string]int{}}
	t.stopReason = func(id string) string {
		turn, err := h.o.Engine.GetTurn(context.WithoutCancel(ctx), inv.project, inv.sessionID, id)
		if err != nil {
			h.o.Logger.ErrorContext(ctx, "read the completed turn's stop reason", "session_id", inv.sessionID, "turn_id", id, "err", err)
			return ""
		}
		return turn.StopReason
	}
	deadline := start.Add(h.o.MaxStreamDuration)
	after := inv.after
	timer := time.NewTimer(0)
	defer timer.Stop()
	wait := h.o.PollInterval
	for !t.done {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		events, err := h.o.Engine.EventsAfter(ctx, inv.sessionID, after, streamBatch)
		if err != nil {
			if ctx.Err() == nil {
				h.o.Logger.ErrorContext(ctx, "read session events", "session_id", inv.sessionID, "err", err)
				_ = fw.Exception(frames.ExceptionInternalServer, "The stream could not be read; the invocation goes on.")
			}
			return
		}
		for _, ev := range events {
			after = ev.Seq
			if err := t.handle(ev); err != nil {
				return // the client is gone; the turn goes on
			}
			if t.done {
				break
			}
		}
		if t.done {
			break
		}
		if h.o.Clock().After(deadline) {
			if t.finish(frames.StopPartialTurn) != nil {
				return
			}
			break
		}
		switch {
		case len(events) == streamBatch:
			timer.Reset(0)
		case len(events) > 0:
			wait = h.o.PollInterval
			timer.Reset(wait)
		default:
			// The turn wrote nothing since the last read (the model thinks, a tool runs): back off, doubling up to
			// MaxPollInterval, so a silent turn does not cost a read every PollInterval; its next event resets it.
			timer.Reset(wait)
			wait = min(2*wait, h.o.MaxPollInterval)
		}
	}
	if t.failed != "" {
		return
	}
	usage := frames.Usage{}
	if t.turnID != "" {
		if turn, err := h.o.Engine.GetTurn(context.WithoutCancel(ctx), inv.project, inv.sessionID, t.turnID); err == nil && turn.Usage != nil {
			usage = frames.Usage{InputTokens: turn.Usage.InputTokens, OutputTokens: turn.Usage.OutputTokens, TotalTokens: turn.Usage.InputTokens + turn.Usage.OutputTokens}
		}
	}
	_ = fw.Event(frames.TypeMetadata, frames.Metadata{Usage: usage, Metrics: frames.Metrics{LatencyMs: h.o.Clock().Sub(start).Milliseconds()}})
}

// translator turns a Session's committed events (of one Turn) into InvokeHarness frames (docs/agentcore.md
// §3.5). Model output becomes assistant messages: text items are text blocks, function and
// MCP calls toolUse blocks; a tool result (an MCP call's, or a function result applied on resume) closes the
// assistant message with `tool_use` and goes into a user message of toolResult blocks that closes with
// `tool_result` when the next assistant output starts. The Turn's end closes the stream: a pause (requires
// action) with `tool_use`, completion with `end_turn`, cancellation with `interrupted`; a failure is an
// in-stream internalServerException. A completion the harness caused by hitting a limit stops with that limit's
// reason instead of `end_turn` (stopReason).
type translator struct {
	out    *frames.Writer
	turnID string
	// stopReason returns the session.Turn.StopReason of a completed turn ("" = none or unknown); nil = always "".
	stopReason func(turnID string) string
	role       string // the open message's role, "" when none
	next       int    // the open message's next content block index
	blocks     map[string]int
	done       bool
	failed     string
}

// eventData is what the translation reads from an event's JSON.
type eventData struct {
	Item *struct {
		ID          string          `json:"id"`
		Type        string          `json:"type"`
		Role        string          `json:"role"`
		Status      string          `json:"status"`
		CallID      string          `json:"call_id"`
		Name        string          `json:"name"`
		ServerLabel string          `json:"server_label"`
		Arguments   json.RawMessage `json:"arguments"`
		Output      json.RawMessage `json:"output"`
		Error       json.RawMessage `json:"error"`
	} `json:"item"`
	ItemID string `json:"item_id"`
	Delta  string `json:"delta"`
	Turn   *struct {
		ID    string `json:"id"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	} `json:"turn"`
}

func (t *translator) handle(ev session.Event) error {
	if ev.Type == session.EventTurnCreated && t.turnID == "" {
		t.turnID = ev.TurnID
		return nil
	}
	if ev.TurnID != "" && ev.TurnID != t.turnID {
		return nil
	}
	if ev.TurnID == "" && ev.Type != session.EventSessionRequiresAction {
		return nil
	}
	var d eventData
	if err := json.Unmarshal(ev.Data, &d); err != nil {
		return nil // not an event this translation reads
	}
	switch ev.Type {
	case session.EventItemAdded:
		if d.Item == nil {
			return nil
		}
		it := d.Item
		switch it.Type {
		case session.ItemMessage:
			if it.Role != "assistant" {
				return nil // the turn's own input
			}
			if err := t.open("assistant"); err != nil {
				return err
			}
			t.blocks[it.ID] = t.next
			t.next++
		case session.ItemFunctionCall:
			return t.toolUse(it.CallID, it.Name, frames.ToolUseInline, "", it.Arguments)
		case session.ItemMCPCall:
			return t.toolUse(it.ID, it.Name, frames.ToolUseMCP, it.ServerLabel, it.Arguments)
		case session.ItemCommandExecution:
			return t.toolUse(it.ID, it.Name, frames.ToolUseServer, "", it.Arguments)
		case session.ItemFunctionCallOutput:
			return t.toolResult(it.CallID, it.Status != session.ItemFailed, it.Output, it.Error)
		}
	case session.EventOutputTextDelta:
		idx, ok := t.blocks[d.ItemID]
		if !ok || d.Delta == "" {
			return nil
		}
		text := d.Delta
		return t.out.Event(frames.TypeContentBlockDelta, frames.ContentBlockDelta{ContentBlockIndex: idx, Delta: frames.Delta{Text: &text}})
	case session.EventItemDone:
		if d.Item == nil {
			return nil
		}
		switch d.Item.Type {
		case session.ItemMessage:
			idx, ok := t.blocks[d.Item.ID]
			if !ok {
				return nil
			}
			delete(t.blocks, d.Item.ID)
			return t.out.Event(frames.TypeContentBlockStop, frames.ContentBlockStop{ContentBlockIndex: idx})
		case session.ItemMCPCall:
			return t.toolResult(d.Item.ID, d.Item.Status != session.ItemFailed, d.Item.Output, d.Item.Error)
		case session.ItemCommandExecution:
			// The observed output is the result either way; a failed call reports it with status error.
			return t.toolResult(d.Item.ID, d.Item.Status != session.ItemFailed, d.Item.Output, d.Item.Output)
		}
	case session.EventSessionRequiresAction:
		if t.turnID == "" {
			return nil
		}
		return t.finish(frames.StopToolUse)
	case session.EventTurnCompleted:
		return t.finish(t.completionReason())
	case session.EventTurnCancelled:
		return t.finish(frames.StopInterrupted)
	case session.EventTurnFailed:
		t.done, t.failed = true, "The execution could not complete."
		if d.Turn != nil && d.Turn.Error != nil && d.Turn.Error.Message != "" {
			t.failed = d.Turn.Error.Message
		}
		return t.out.Exception(frames.ExceptionInternalServer, t.failed)
	}
	return nil
}

// completionReason is the stopReason of a completed turn: the limit the harness stopped at, else end_turn.
func (t *translator) completionReason() string {
	if t.stopReason == nil {
		return frames.StopEndTurn
	}
	switch r := t.stopReason(t.turnID); r {
	case session.StopMaxTokens:
		return frames.StopMaxTokens
	case session.StopMaxIterationsExceeded:
		return frames.StopMaxIterationsExceeded
	case session.StopMaxOutputTokensExceeded:
		return frames.StopMaxOutputTokensExceeded
	case session.StopTimeoutExceeded:
		return frames.StopTimeoutExceeded
	default:
		return frames.StopEndTurn
	}
}

// open makes sure a message of role is open, closing another one first.
func (t *translator) open(role string) error {
	if t.role == role {
		return nil
	}
	if err := t.close(); err != nil {
		return err
	}
	t.role, t.next = role, 0
	return t.out.Event(frames.TypeMessageStart, frames.MessageStart{Role: role})
}

// close closes the open message: an assistant message stops with tool_use (its tools run next), a user message of
// tool results with tool_result.
func (t *translator) close() error {
	switch t.role {
	case "":
		return nil
	case "assistant":
		if err := t.closeBlocks(); err != nil {
			return err
		}
		t.role = ""
		return t.out.Event(frames.TypeMessageStop, frames.MessageStop{StopReason: frames.StopToolUse})
	default:
		t.role = ""
		return t.out.Event(frames.TypeMessageStop, frames.MessageStop{StopReason: frames.StopToolResult})
	}
}

// closeBlocks stops text blocks still open (a message item that never finished).
func (t *translator) closeBlocks() error {
	open := slices.Sorted(maps.Values(t.blocks))
	clear(t.blocks)
	for _, idx := range open {
		if err := t.out.Event(frames.TypeContentBlockStop, frames.ContentBlockStop{ContentBlockIndex: idx}); err != nil {
			return err
		}
	}
	return nil
}

// toolUse writes one toolUse block (start, the input as one fragment, stop) into the open assistant message.
func (t *translator) toolUse(id, name, typ, server string, args json.RawMessage) error {
	if err := t.open("assistant"); err != nil {
		return err
	}
	idx := t.next
	t.next++
	input := string(args)
	if input == "" || input == "null" {
		input = "{}"
	}
	for _, f := range []func() error{
		func() error {
			return t.out.Event(frames.TypeContentBlockStart, frames.ContentBlockStart{ContentBlockIndex: idx,
				Start: frames.BlockStart{ToolUse: &frames.ToolUseStart{ToolUseID: id, Name: name, Type: typ, ServerName: server}}})
		},
		func() error {
			return t.out.Event(frames.TypeContentBlockDelta, frames.ContentBlockDelta{ContentBlockIndex: idx, Delta: frames.Delta{ToolUse: &frames.ToolUseDelta{Input: input}}})
		},
		func() error {
			return t.out.Event(frames.TypeContentBlockStop, frames.ContentBlockStop{ContentBlockIndex: idx})
		},
	} {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// toolResult writes one toolResult block into the open user message (opening it after the assistant message):
// output or error as content — a JSON string as {text}, any other value as {json}.
func (t *translator) toolResult(id string, ok bool, output, errValue json.RawMessage) error {
	if err := t.open("user"); err != nil {
		return err
	}
	idx := t.next
	t.next++
	status, value := "success", output
	if !ok {
		status, value = "error", errValue
	}
	var content []json.RawMessage
	var s string
	switch {
	case len(value) == 0 || string(value) == "null":
		content = []json.RawMessage{json.RawMessage(`{"text":""}`)}
	case json.Unmarshal(value, &s) == nil:
		b, _ := json.Marshal(map[string]string{"text": s})
		content = []json.RawMessage{b}
	default:
		b, _ := json.Marshal(map[string]json.RawMessage{"json": value})
		content = []json.RawMessage{b}
	}
	if err := t.out.Event(frames.TypeContentBlockStart, frames.ContentBlockStart{ContentBlockIndex: idx,
		Start: frames.BlockStart{ToolResult: &frames.ToolResultStart{ToolUseID: id, Status: status}}}); err != nil {
		return err
	}
	if err := t.out.Event(frames.TypeContentBlockDelta, frames.ContentBlockDelta{ContentBlockIndex: idx, Delta: frames.Delta{ToolResult: content}}); err != nil {
		return err
	}
	return t.out.Event(frames.TypeContentBlockStop, frames.ContentBlockStop{ContentBlockIndex: idx})
}

// finish ends the stream's last message with reason: the open assistant message stops with it; otherwise (no
// output, or the last message was tool results) an empty assistant message carries it.
func (t *translator) finish(reason string) error {
	t.done = true
	if t.role == "user" {
		if err := t.close(); err != nil {
			return err
		}
	}
	if t.role == "" {
		if err := t.out.Event(frames.TypeMessageStart, frames.MessageStart{Role: "assistant"}); err != nil {
			return err
		}
	}
	if err := t.closeBlocks(); err != nil {
		return err
	}
	t.role = ""
	return t.out.Event(frames.TypeMessageStop, frames.MessageStop{StopReason: reason})
}
