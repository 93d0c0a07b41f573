package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/baton-run/baton/shared/session"
)

// MCPCall is a call of an HTTP MCP tool that the harness executes itself (docs/agents-api.md §3.5: the
// harness owns discovery, calls and results). ServerLabel and Name are the declaration's server_label and the
// server's original tool name; CallID is the model's call id (stored, not rendered: the pinned mcp_call item has
// no call_id; the harness uses it to show the call to the model again); Arguments is a JSON value (an object for
// well-formed calls; empty means {}).
type MCPCall struct {
	CallID      string
	ServerLabel string
	Name        string
	Arguments   json.RawMessage
}

// StartMCPCall appends an mcp_call output item in status in_progress, with output and error null, and its
// item.added event (docs/agents-api.md §2.4, §2.6); the item counts as an output item (output_index).
// Returns the item id for FinishMCPCall. Fails with ErrTurnNotRunnable once the turn was cancelled or ended.
func (r *Run) StartMCPCall(ctx context.Context, c MCPCall) (string, error) {
	args := c.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	return r.openOutputItem(ctx, "mcp", session.Item{Type: session.ItemMCPCall, CallID: c.CallID, ServerLabel: c.ServerLabel,
		Name: c.Name, Arguments: args, Status: session.ItemInProgress})
}

// FinishMCPCall completes an mcp_call item opened by StartMCPCall in this run: status completed with output set
// and error null, or, when failed, status failed with error set (output as observed, usually null); then its
// item.done event. output and errValue are JSON values (empty = null).
func (r *Run) FinishMCPCall(ctx context.Context, itemID string, output, errValue json.RawMessage, failed bool) error {
	return r.closeOutputItem(ctx, "finish mcp call", itemID, func(it *session.Item) {
		it.Status = session.ItemCompleted
		if failed {
			it.Status = session.ItemFailed
		}
		it.Output, it.Error = output, errValue
	})
}

// ToolExecution is a call of a harness-run builtin tool (docs/tools.md "Builtin tools"): CallID is the model's call
// id, Name the tool's name as offered, Arguments its JSON input (empty means {}), Command the one-line rendering
// shown as the item's `command`, Cwd the workspace directory as the tool sees it.
type ToolExecution struct {
	CallID    string
	Name      string
	Arguments json.RawMessage
	Command   string
	Cwd       string
}

// ToolExecutionResult is what a builtin tool call produced: Output the text the model read, ExitCode the process
// exit status (0 when none ran), DurationMs the call's wall time in milliseconds, Failed a tool-level failure;
// Command and Cwd, when not empty, replace the item's (the tool's own rendering, known once it ran).
type ToolExecutionResult struct {
	Command    string
	Cwd        string
	Output     string
	ExitCode   int
	DurationMs int64
	Failed     bool
}

// StartToolExecution appends a command_execution output item in status in_progress (output "") and its item.added
// event (docs/tools.md "Items"); the item counts as an output item (output_index). Returns the item id for
// FinishToolExecution. Fails with ErrTurnNotRunnable once the turn was cancelled or ended.
func (r *Run) StartToolExecution(ctx context.Context, c ToolExecution) (string, error) {
	args := c.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	return r.openOutputItem(ctx, "cmd", session.Item{Type: session.ItemCommandExecution, CallID: c.CallID, Name: c.Name,
		Arguments: args, Command: c.Command, Cwd: c.Cwd, Output: json.RawMessage(`""`), Status: session.ItemInProgress})
}

// FinishToolExecution completes a command_execution item opened by StartToolExecution in this run: status
// completed (failed when res.Failed) with the output, exit code and duration; then its item.done event.
func (r *Run) FinishToolExecution(ctx context.Context, itemID string, res ToolExecutionResult) error {
	out, err := json.Marshal(res.Output)
	if err != nil {
		return fmt.Errorf("finish tool execution: %w", err)
	}
	return r.closeOutputItem(ctx, "finish tool execution", itemID, func(it *session.Item) {
		it.Status = session.ItemCompleted
		if res.Failed {
			it.Status = session.ItemFailed
		}
		it.Output, it.ExitCode, it.DurationMs = out, res.ExitCode, res.DurationMs
		if res.Command != "" {
			it.Command = res.Command
		}
		if res.Cwd != "" {
			it.Cwd = res.Cwd
		}
	})
}

// openOutputItem appends item, with its id prefixed by prefix, as the running turn's next output item (TurnID and
// output_index set here) and its item.added event, and remembers its output_index for closeOutputItem. Returns the
// item id. Fails with ErrTurnNotRunnable once the turn was cancelled or ended.
func (r *Run) openOutputItem(ctx context.Context, prefix string, item session.Item) (string, error) {
	var id string
	err := r.apply(ctx, func(s *session.Session, t *session.Turn, w *writer) error {
		idx := t.OutputCount
		t.OutputCount++
		it := item
		it.TurnID = t.ID
		it = w.item(prefix, it)
		it.OutputIndex = &idx
		w.items[len(w.items)-1].Item = it
		id = it.ID
		w.event(session.EventItemAdded, t.ID, func(m map[string]any) { m["item"] = it; m["output_index"] = idx })
		return nil
	})
	if err == nil {
		r.mu.Lock()
		r.indexes[id] = *r.History[len(r.History)-1].OutputIndex
		r.mu.Unlock()
	}
	return id, err
}

// closeOutputItem replaces the output item itemID, opened by openOutputItem in this run, with finish applied to it,
// and emits its item.done event. An item not open in this run is an error naming op.
func (r *Run) closeOutputItem(ctx context.Context, op, itemID string, finish func(it *session.Item)) error {
	r.mu.Lock()
	idx, ok := r.indexes[itemID]
	var item session.Item
	for _, it := range r.History {
		if it.ID == itemID {
			item = it
		}
	}
	r.mu.Unlock()
	if !ok {
		return fmt.Errorf("%s: item %s is not open in this run", op, itemID)
	}
	return r.apply(ctx, func(s *session.Session, t *session.Turn, w *writer) error {
		it := item
		finish(&it)
		w.replace(it)
		w.event(session.EventItemDone, t.ID, func(m map[string]any) { m["item"] = it; m["output_index"] = idx })
		return nil
	})
}
