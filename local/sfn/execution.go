package sfn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Execution statuses (spec §4.11).
const (
	statusRunning   = "RUNNING"
	statusSucceeded = "SUCCEEDED"
	statusFailed    = "FAILED"
	statusTimedOut  = "TIMED_OUT"
	statusAborted   = "ABORTED"
)

// Cursor phases: what the execution is doing in its current state.
const (
	phaseEnter = "enter" // about to enter State with Input
	phaseWait  = "wait"  // Wait state until WakeAt, then exit with Pending
	phaseTask  = "task"  // a Task attempt is open (Task)
	phaseRetry = "retry" // waiting until WakeAt before the next attempt
)

const maxHistoryEvents = 25000

// execRecord is everything the endpoint keeps about one execution; it is the JSON file written at every
// transition when DataDir is set.
type execRecord struct {
	ExecutionARN     string         `json:"executionArn"`
	StateMachineARN  string         `json:"stateMachineArn"`
	StateMachineName string         `json:"stateMachineName"`
	Name             string         `json:"name"`
	RoleARN          string         `json:"roleArn"`
	Definition       string         `json:"definition"`
	Input            string         `json:"input"`
	Status           string         `json:"status"`
	StartDate        time.Time      `json:"startDate"`
	StopDate         *time.Time     `json:"stopDate,omitempty"`
	Output           *string        `json:"output,omitempty"`
	Error            *string        `json:"error,omitempty"`
	Cause            *string        `json:"cause,omitempty"`
	Transitions      int64          `json:"transitions"`
	History          []historyEvent `json:"history"`
	Cursor           *cursor        `json:"cursor,omitempty"`
}

type historyEvent struct {
	ID              int64          `json:"id"`
	PreviousEventID int64          `json:"previousEventId"`
	Timestamp       time.Time      `json:"timestamp"`
	Type            string         `json:"type"`
	Details         map[string]any `json:"details,omitempty"`
}

type cursor struct {
	Phase           string     `json:"phase"`
	State           string     `json:"state"`
	Input           any        `json:"input"`
	EnteredTime     time.Time  `json:"enteredTime"`
	EnteredEventID  int64      `json:"enteredEventId"`
	RetryCount      int64      `json:"retryCount"`
	RetrierAttempts []int64    `json:"retrierAttempts,omitempty"`
	WakeAt          *time.Time `json:"wakeAt,omitempty"`
	Pending         any        `json:"pending,omitempty"`
	Task            *openTask  `json:"task,omitempty"`
}

type openTask struct {
	Token            string       `json:"token"`
	Kind             resourceKind `json:"kind"`
	Resource         string       `json:"resource"` // activity ARN, function name or integration resource
	Input            any          `json:"input"`
	TimeoutSeconds   int64        `json:"timeoutSeconds,omitempty"`
	HeartbeatSeconds int64        `json:"heartbeatSeconds,omitempty"`
	ScheduledAt      time.Time    `json:"scheduledAt"`
	Started          bool         `json:"started"`
	StartedAt        time.Time    `json:"startedAt"`
	LastHeartbeat    time.Time    `json:"lastHeartbeat"`
	Submitted        bool         `json:"submitted,omitempty"`
}

type msgKind int

const (
	msgTaskSuccess msgKind = iota + 1
	msgTaskFailure
	msgHeartbeat
	msgActivityStarted
	msgStop
	msgInvokeDone
)

type execMsg struct {
	kind   msgKind
	token  string
	output any
	err    *stateError
	worker string
	// invoke results
	out     []byte
	fnError string
	callErr error
	reply   chan error
	stopped chan time.Time
}

// execution is one execution: its record (guarded by mu) and, while RUNNING, an actor goroutine that owns
// every transition. Handlers talk to the actor through inbox.
type execution struct {
	ep    *Endpoint
	def   *definition
	input any // parsed rec.Input

	mu  sync.Mutex
	rec execRecord

	inbox chan execMsg
	done  chan struct{}

	// actor-only state
	invokeCancel context.CancelFunc
	invoking     string // token of the in-flight Lambda call
}

func (ep *Endpoint) newExecution(rec execRecord) (*execution, error) {
	d, err := parseDefinition(rec.Definition)
	if err != nil {
		return nil, fmt.Errorf("execution %s: %w", rec.ExecutionARN, err)
	}
	in, err := decodeJSON([]byte(rec.Input))
	if err != nil {
		return nil, fmt.Errorf("execution %s input: %w", rec.ExecutionARN, err)
	}
	x := &execution{ep: ep, def: d, input: in, rec: rec, inbox: make(chan execMsg), done: make(chan struct{})}
	if rec.Status != statusRunning {
		close(x.done)
	}
	return x, nil
}

func (ep *Endpoint) startActor(x *execution) {
	ep.wg.Add(1)
	go x.run(ep.ctx)
}

// call delivers m to the actor and waits for its answer. A closed execution answers TaskTimedOut.
func (x *execution) call(ctx context.Context, m execMsg) error {
	m.reply = make(chan error, 1)
	select {
	case x.inbox <- m:
	case <-x.done:
		return apiErr(CodeTaskTimedOut, "Task Timed Out: '%s'", "Provided task does not exist anymore")
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-m.reply:
		return err
	case <-x.done:
		select {
		case err := <-m.reply:
			return err
		default:
			return apiErr(CodeTaskTimedOut, "Task Timed Out: '%s'", "Provided task does not exist anymore")
		}
	}
}

func (x *execution) run(ctx context.Context) {
	defer x.ep.wg.Done()
	defer close(x.done)
	defer func() {
		if x.invokeCancel != nil {
			x.invokeCancel()
		}
	}()
	for {
		x.mu.Lock()
		if x.rec.Status != statusRunning {
			x.mu.Unlock()
			return
		}
		changed := x.advance()
		x.startInvokeIfNeeded(ctx)
		deadline, ok := x.nextDeadline()
		x.mu.Unlock()
		if changed {
			x.save()
			continue
		}
		var timerC <-chan time.Time
		var timer Timer
		if ok {
			d := deadline.Sub(x.ep.clock.Now())
			if d <= 0 {
				x.step(func() bool { return x.onDeadline() })
				continue
			}
			timer = x.ep.clock.NewTimer(d)
			timerC = timer.C()
		}
		select {
		case <-ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return
		case m := <-x.inbox:
			if timer != nil {
				timer.Stop()
			}
			x.step(func() bool { return x.handle(m) })
		case <-timerC:
			x.step(func() bool { return x.onDeadline() })
		}
	}
}

// step runs fn under the lock and persists the record when fn reports a change.
func (x *execution) step(fn func() bool) {
	x.mu.Lock()
	changed := fn()
	x.mu.Unlock()
	if changed {
		x.save()
	}
}

func (x *execution) save() {
	x.mu.Lock()
	data, err := json.Marshal(&x.rec)
	arn := x.rec.ExecutionARN
	x.mu.Unlock()
	if x.ep.store == nil {
		return
	}
	if err == nil {
		err = x.ep.store.put(kindExecutions, arn, data)
	}
	if err != nil {
		x.ep.log.Error("sfn: persist execution", "arn", arn, "err", err)
	}
}

// advance performs immediate work (entering a state). It reports whether the record changed.
func (x *execution) advance() bool {
	c := x.rec.Cursor
	if c == nil || c.Phase != phaseEnter {
		return false
	}
	if len(x.rec.History) > maxHistoryEvents {
		x.fail(newStateError(errRuntime, "The execution reached the maximum number of history events (25000)."))
		return true
	}
	x.enterState()
	return true
}

func (x *execution) nextDeadline() (time.Time, bool) {
	var best time.Time
	set := func(t time.Time) {
		if best.IsZero() || t.Before(best) {
			best = t
		}
	}
	if x.def.TimeoutSeconds > 0 {
		set(x.rec.StartDate.Add(time.Duration(x.def.TimeoutSeconds) * time.Second))
	}
	if c := x.rec.Cursor; c != nil {
		if (c.Phase == phaseWait || c.Phase == phaseRetry) && c.WakeAt != nil {
			set(*c.WakeAt)
		}
		if t := c.Task; c.Phase == phaseTask && t != nil && t.Started {
			if t.TimeoutSeconds > 0 {
				set(t.StartedAt.Add(time.Duration(t.TimeoutSeconds) * time.Second))
			}
			if t.HeartbeatSeconds > 0 {
				set(t.LastHeartbeat.Add(time.Duration(t.HeartbeatSeconds) * time.Second))
			}
		}
	}
	return best, !best.IsZero()
}

func (x *execution) onDeadline() bool {
	now := x.ep.clock.Now()
	if x.def.TimeoutSeconds > 0 && !now.Before(x.rec.StartDate.Add(time.Duration(x.def.TimeoutSeconds)*time.Second)) {
		x.closeTask()
		x.finish(statusTimedOut, "ExecutionTimedOut", strPtr(errTimeout), strPtr("The execution timed out."), nil)
		return true
	}
	c := x.rec.Cursor
	if c == nil {
		return false
	}
	switch c.Phase {
	case phaseWait:
		if c.WakeAt != nil && !now.Before(*c.WakeAt) {
			st := x.def.States[c.State]
			x.exitState(st, c.Pending)
			return true
		}
	case phaseRetry:
		if c.WakeAt != nil && !now.Before(*c.WakeAt) {
			x.scheduleTask(x.def.States[c.State])
			return true
		}
	case phaseTask:
		t := c.Task
		if t == nil || !t.Started {
			return false
		}
		timedOut := t.TimeoutSeconds > 0 && !now.Before(t.StartedAt.Add(time.Duration(t.TimeoutSeconds)*time.Second))
		hb := t.HeartbeatSeconds > 0 && !now.Before(t.LastHeartbeat.Add(time.Duration(t.HeartbeatSeconds)*time.Second))
		if !timedOut && !hb {
			return false
		}
		se := &stateError{Name: strPtr(errTimeout), Heartbeat: hb && !timedOut}
		switch t.Kind {
		case resActivity:
			x.event("ActivityTimedOut", map[string]any{"error": errTimeout})
		case resLambdaLegacy:
			x.event("LambdaFunctionTimedOut", map[string]any{"error": errTimeout})
		default:
			x.event("TaskTimedOut", map[string]any{"resourceType": "lambda", "resource": t.Resource, "error": errTimeout})
		}
		x.taskError(se)
		return true
	}
	return false
}

func (x *execution) handle(m execMsg) bool {
	c := x.rec.Cursor
	var t *openTask
	if c != nil && c.Phase == phaseTask {
		t = c.Task
	}
	matches := t != nil && m.token == t.Token
	reply := func(err error) {
		if m.reply != nil {
			m.reply <- err
		}
	}
	timedOut := apiErr(CodeTaskTimedOut, "Task Timed Out: '%s'", "Provided task does not exist anymore")
	switch m.kind {
	case msgStop:
		x.closeTask()
		now := x.ep.now()
		x.finishAt(now, statusAborted, "ExecutionAborted", m.err.Name, m.err.Cause, nil)
		m.stopped <- now
		return true
	case msgActivityStarted:
		if !matches || t.Started {
			reply(timedOut)
			return false
		}
		now := x.ep.now()
		t.Started, t.StartedAt, t.LastHeartbeat = true, now, now
		d := map[string]any{}
		if m.worker != "" {
			d["workerName"] = m.worker
		}
		x.event("ActivityStarted", d)
		reply(nil)
		return true
	case msgHeartbeat:
		if !matches {
			reply(timedOut)
			return false
		}
		reply(nil)
		if t.HeartbeatSeconds > 0 && t.Started {
			t.LastHeartbeat = x.ep.now()
			return true
		}
		return false
	case msgTaskSuccess:
		if !matches || t.Kind == resLambdaInvoke || t.Kind == resLambdaLegacy {
			reply(timedOut)
			return false
		}
		reply(nil)
		out := encodeString(m.output)
		if t.Kind == resActivity {
			x.event("ActivitySucceeded", map[string]any{"output": out, "outputDetails": map[string]any{"truncated": false}})
		} else {
			x.event("TaskSucceeded", map[string]any{"resourceType": "lambda", "resource": t.Resource, "output": out, "outputDetails": map[string]any{"truncated": false}})
		}
		x.completeTask(m.output)
		return true
	case msgTaskFailure:
		if !matches || t.Kind == resLambdaInvoke || t.Kind == resLambdaLegacy {
			reply(timedOut)
			return false
		}
		reply(nil)
		d := map[string]any{}
		if m.err.Name != nil {
			d["error"] = *m.err.Name
		}
		if m.err.Cause != nil {
			d["cause"] = *m.err.Cause
		}
		if t.Kind == resActivity {
			x.event("ActivityFailed", d)
		} else {
			d["resourceType"], d["resource"] = "lambda", t.Resource
			x.event("TaskFailed", d)
		}
		x.taskError(m.err)
		return true
	case msgInvokeDone:
		if m.token == x.invoking {
			x.invoking = ""
			x.invokeCancel = nil
		}
		if !matches {
			return false
		}
		return x.onInvokeDone(t, m)
	}
	return false
}

// ---- state processing ----

func (x *execution) contextObject(st *stateDef, token string) map[string]any {
	c := x.rec.Cursor
	ctx := map[string]any{
		"Execution": map[string]any{
			"Id":           x.rec.ExecutionARN,
			"Input":        x.input,
			"Name":         x.rec.Name,
			"RoleArn":      x.rec.RoleARN,
			"StartTime":    isoTime(x.rec.StartDate),
			"RedriveCount": json.Number("0"),
		},
		"StateMachine": map[string]any{"Id": x.rec.StateMachineARN, "Name": x.rec.StateMachineName},
		"State": map[string]any{
			"Name":        st.Name,
			"EnteredTime": isoTime(c.EnteredTime),
			"RetryCount":  json.Number(fmt.Sprint(c.RetryCount)),
		},
	}
	if token != "" {
		ctx["Task"] = map[string]any{"Token": token}
	}
	return ctx
}

func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func applyInputPath(p *dataPath, input, ctx any) (any, error) {
	if p == nil {
		return input, nil
	}
	if p.null {
		return map[string]any{}, nil
	}
	v, err := p.path.eval(input, ctx)
	if err != nil {
		return nil, runtimeError("%v", err)
	}
	return v, nil
}

func applyResultPath(p *dataPath, raw, result any) (any, error) {
	if p == nil {
		return result, nil
	}
	if p.null {
		return raw, nil
	}
	v, err := p.path.setPath(raw, result)
	if err != nil {
		return nil, newStateError(errResultPathMatch, err.Error())
	}
	return v, nil
}

func (x *execution) stateErrorPrefix(se *stateError) *stateError {
	if se == nil || deref(se.Name) != errRuntime {
		return se
	}
	c := x.rec.Cursor
	cause := fmt.Sprintf("An error occurred while executing the state '%s' (entered at the event id #%d). %s", c.State, c.EnteredEventID, deref(se.Cause))
	return &stateError{Name: se.Name, Cause: &cause}
}

func asStateError(err error) *stateError {
	var se *stateError
	if errors.As(err, &se) {
		return se
	}
	return newStateError(errRuntime, err.Error())
}

func (x *execution) enterState() {
	c := x.rec.Cursor
	st := x.def.States[c.State]
	c.EnteredTime = x.ep.now()
	c.RetryCount, c.RetrierAttempts, c.WakeAt, c.Pending, c.Task = 0, nil, nil, nil, nil
	x.rec.Transitions++
	c.EnteredEventID = x.event(st.Type+"StateEntered", map[string]any{"name": st.Name, "input": encodeString(c.Input), "inputDetails": map[string]any{"truncated": false}})
	ctx := x.contextObject(st, "")
	fail := func(err error) { x.fail(x.stateErrorPrefix(asStateError(err))) }
	switch st.Type {
	case "Pass":
		eff, err := applyInputPath(st.InputPath, c.Input, ctx)
		if err == nil && st.Parameters != nil {
			eff, err = st.Parameters.eval(eff, ctx)
		}
		if err != nil {
			fail(err)
			return
		}
		result := eff
		if st.HasResult {
			result = deepCopy(st.Result)
		}
		out, err := applyResultPath(st.ResultPath, c.Input, result)
		if err == nil {
			out, err = applyInputPath(st.OutputPath, out, ctx)
		}
		if err != nil {
			fail(err)
			return
		}
		x.exitState(st, out)
	case "Choice":
		eff, err := applyInputPath(st.InputPath, c.Input, ctx)
		if err != nil {
			fail(err)
			return
		}
		next := st.Default
		for _, r := range st.Choices {
			ok, err := r.eval(eff, ctx)
			if err != nil {
				fail(err)
				return
			}
			if ok {
				next = r.next
				break
			}
		}
		if next == "" {
			x.fail(newStateError(errNoChoiceMatched, fmt.Sprintf("An error occurred while executing the state '%s' (entered at the event id #%d). Failed to transition out of the state. The state does not point to a next state.", st.Name, c.EnteredEventID)))
			return
		}
		out, err := applyInputPath(st.OutputPath, eff, ctx)
		if err != nil {
			fail(err)
			return
		}
		x.exitTo(st, out, next)
	case "Wait":
		eff, err := applyInputPath(st.InputPath, c.Input, ctx)
		if err != nil {
			fail(err)
			return
		}
		wake, err := waitUntil(st, eff, c.EnteredTime)
		if err != nil {
			fail(err)
			return
		}
		out, err := applyInputPath(st.OutputPath, eff, ctx)
		if err != nil {
			fail(err)
			return
		}
		c.Phase, c.WakeAt, c.Pending = phaseWait, &wake, out
	case "Succeed":
		eff, err := applyInputPath(st.InputPath, c.Input, ctx)
		if err == nil {
			eff, err = applyInputPath(st.OutputPath, eff, ctx)
		}
		if err != nil {
			fail(err)
			return
		}
		x.exitState(st, eff)
	case "Fail":
		se := &stateError{Name: st.Error, Cause: st.Cause}
		for i, ds := range []*dynString{st.ErrorPath, st.CausePath} {
			if ds == nil {
				continue
			}
			var v any
			var err error
			if ds.path != nil {
				v, err = ds.path.eval(c.Input, ctx)
				if err != nil {
					field := []string{"ErrorPath", "CausePath"}[i]
					err = runtimeError("The JSONPath '%s' specified for the field '%s' could not be found in the input '%s'", ds.text, field, encodeString(c.Input))
				}
			} else {
				v, err = ds.call.eval(c.Input, ctx)
			}
			if err != nil {
				fail(err)
				return
			}
			s, ok := v.(string)
			if !ok {
				fail(runtimeError("The value of %s must be a string, got %s", []string{"ErrorPath", "CausePath"}[i], jsonTypeName(v)))
				return
			}
			if i == 0 {
				se.Name = &s
			} else {
				se.Cause = &s
			}
		}
		x.fail(se)
	case "Task":
		x.scheduleTask(st)
	}
}

func waitUntil(st *stateDef, eff any, entered time.Time) (time.Time, error) {
	switch {
	case st.Seconds != nil:
		return entered.Add(time.Duration(*st.Seconds) * time.Second), nil
	case st.Timestamp != "":
		t, _ := parseTimestamp(st.Timestamp)
		return t, nil
	case st.SecondsPath != nil:
		v, err := st.SecondsPath.eval(eff, nil)
		if err != nil {
			return time.Time{}, runtimeError("The SecondsPath parameter does not reference an input value: %s", st.SecondsPath.text)
		}
		n, ok := asInt(v)
		if !ok {
			return time.Time{}, runtimeError("The SecondsPath parameter cannot be parsed as a long value: %s == %s", st.SecondsPath.text, encodeString(v))
		}
		if n < 0 {
			return time.Time{}, runtimeError("The SecondsPath parameter references a negative value: %s == %d", st.SecondsPath.text, n)
		}
		return entered.Add(time.Duration(n) * time.Second), nil
	default:
		v, err := st.TimestampPath.eval(eff, nil)
		if err != nil {
			return time.Time{}, runtimeError("The TimestampPath parameter does not reference an input value: %s", st.TimestampPath.text)
		}
		s, _ := v.(string)
		t, perr := parseTimestamp(s)
		if perr != nil {
			return time.Time{}, runtimeError("The TimestampPath parameter does not reference a valid ISO-8601 extended offset date-time format string: %s == %s", st.TimestampPath.text, encodeString(v))
		}
		return t, nil
	}
}

// exitState records <Type>StateExited and moves to Next, or ends the execution.
func (x *execution) exitState(st *stateDef, out any) {
	if st.Type == "Succeed" || st.End {
		if !x.checkSize(out) {
			return
		}
		x.event(st.Type+"StateExited", map[string]any{"name": st.Name, "output": encodeString(out), "outputDetails": map[string]any{"truncated": false}})
		s := encodeString(out)
		x.finish(statusSucceeded, "ExecutionSucceeded", nil, nil, &s)
		return
	}
	x.exitTo(st, out, st.Next)
}

func (x *execution) exitTo(st *stateDef, out any, next string) {
	if !x.checkSize(out) {
		return
	}
	x.event(st.Type+"StateExited", map[string]any{"name": st.Name, "output": encodeString(out), "outputDetails": map[string]any{"truncated": false}})
	x.rec.Cursor = &cursor{Phase: phaseEnter, State: next, Input: out}
}

func (x *execution) checkSize(out any) bool {
	if len(encodeJSON(out)) > maxPayloadBytes {
		x.fail(newStateError(errDataLimitExceeded, fmt.Sprintf("The state/task '%s' returned a result with a size exceeding the maximum number of bytes service limit.", x.rec.Cursor.State)))
		return false
	}
	return true
}

func (x *execution) fail(se *stateError) {
	x.closeTask()
	x.finish(statusFailed, "ExecutionFailed", se.Name, se.Cause, nil)
}

func (x *execution) finish(status, eventType string, errName, cause, output *string) {
	x.finishAt(x.ep.now(), status, eventType, errName, cause, output)
}

func (x *execution) finishAt(now time.Time, status, eventType string, errName, cause, output *string) {
	d := map[string]any{}
	if errName != nil {
		d["error"] = *errName
	}
	if cause != nil {
		d["cause"] = *cause
	}
	if output != nil {
		d["output"] = *output
		d["outputDetails"] = map[string]any{"truncated": false}
	}
	x.event(eventType, d)
	x.rec.Status, x.rec.StopDate = status, &now
	x.rec.Error, x.rec.Cause, x.rec.Output = errName, cause, output
	x.rec.Cursor = nil
}

// closeTask ends the open task attempt, if any: its queued activity task is withdrawn and its Lambda call
// cancelled; its token then answers TaskTimedOut.
func (x *execution) closeTask() {
	c := x.rec.Cursor
	if c == nil || c.Task == nil {
		return
	}
	if c.Task.Kind == resActivity && !c.Task.Started {
		x.ep.dequeue(c.Task.Resource, c.Task.Token)
	}
	if x.invokeCancel != nil {
		x.invokeCancel()
		x.invokeCancel, x.invoking = nil, ""
	}
	c.Task = nil
}

func (x *execution) event(typ string, details map[string]any) int64 {
	id := int64(len(x.rec.History) + 1)
	prev := id - 1
	if typ == "ExecutionStarted" {
		prev = 0
	}
	x.rec.History = append(x.rec.History, historyEvent{ID: id, PreviousEventID: prev, Timestamp: x.ep.now(), Type: typ, Details: details})
	return id
}

// ---- tasks ----

func resolveSeconds(p *jsonPath, literal int64, eff, ctx any, field string) (int64, error) {
	if p == nil {
		return literal, nil
	}
	v, err := p.eval(eff, ctx)
	if err != nil {
		return 0, runtimeError("%v", err)
	}
	n, ok := asInt(v)
	if !ok || n <= 0 {
		return 0, runtimeError("The %s parameter does not reference a positive integer: %s == %s", field, p.text, encodeString(v))
	}
	return n, nil
}

// scheduleTask starts a new attempt of the Task state st (on entry and on every retry).
func (x *execution) scheduleTask(st *stateDef) {
	c := x.rec.Cursor
	c.Phase, c.WakeAt = phaseTask, nil
	if c.RetryCount > 0 {
		x.rec.Transitions++
	}
	token := mintToken(tokenClaims{Execution: x.rec.ExecutionARN, State: st.Name, Attempt: c.RetryCount, Nonce: x.ep.opts.NewID()})
	ctx := x.contextObject(st, "")
	eff, err := applyInputPath(st.InputPath, c.Input, ctx)
	var timeout, heartbeat int64
	if err == nil {
		timeout, err = resolveSeconds(st.TimeoutSecondsPath, st.TimeoutSeconds, eff, ctx, "TimeoutSecondsPath")
	}
	if err == nil {
		heartbeat, err = resolveSeconds(st.HeartbeatSecondsPath, st.HeartbeatSeconds, eff, ctx, "HeartbeatSecondsPath")
	}
	if err == nil && st.Parameters != nil {
		pctx := ctx
		if st.Kind == resLambdaCallback {
			pctx = x.contextObject(st, token)
		}
		eff, err = st.Parameters.eval(eff, pctx)
	}
	if err == nil && len(encodeJSON(eff)) > maxPayloadBytes {
		err = newStateError(errDataLimitExceeded, fmt.Sprintf("The state/task '%s' has an input with a size exceeding the maximum number of bytes service limit.", st.Name))
	}
	if err == nil && st.Kind == resActivity && !x.ep.activityExists(st.Resource) {
		err = runtimeError("The activity %s does not exist.", st.Resource)
	}
	if err != nil {
		x.taskError(x.stateErrorPrefix(asStateError(err)))
		return
	}
	now := x.ep.now()
	t := &openTask{Token: token, Kind: st.Kind, Resource: st.Resource, Input: eff, TimeoutSeconds: timeout, HeartbeatSeconds: heartbeat, ScheduledAt: now}
	c.Task = t
	limits := func(d map[string]any) map[string]any {
		if timeout > 0 {
			d["timeoutInSeconds"] = timeout
		}
		if heartbeat > 0 {
			d["heartbeatInSeconds"] = heartbeat
		}
		return d
	}
	input := encodeString(eff)
	switch st.Kind {
	case resActivity:
		x.event("ActivityScheduled", limits(map[string]any{"resource": st.Resource, "input": input, "inputDetails": map[string]any{"truncated": false}}))
		x.ep.enqueueLocked(st.Resource, queuedTask{token: token, input: input, exec: x, at: now})
	case resLambdaLegacy:
		t.Resource = st.Resource
		d := map[string]any{"resource": st.Resource, "input": input, "inputDetails": map[string]any{"truncated": false}}
		if timeout > 0 {
			d["timeoutInSeconds"] = timeout
		}
		x.event("LambdaFunctionScheduled", d)
		x.event("LambdaFunctionStarted", map[string]any{})
		t.Started, t.StartedAt, t.LastHeartbeat = true, now, now
	default:
		t.Resource = strings.TrimPrefix(st.Resource, "arn:aws:states:::lambda:")
		x.event("TaskScheduled", limits(map[string]any{"resourceType": "lambda", "resource": t.Resource, "region": x.ep.opts.Region, "parameters": input}))
		x.event("TaskStarted", map[string]any{"resourceType": "lambda", "resource": t.Resource})
		t.Started, t.StartedAt, t.LastHeartbeat = true, now, now
	}
}

// startInvokeIfNeeded starts the Lambda call of the open attempt in its own goroutine (so that a function
// may call SendTaskSuccess before it returns). After a restart it re-invokes a call whose outcome was not
// recorded; a recorded result or TaskSubmitted is never invoked again.
func (x *execution) startInvokeIfNeeded(ctx context.Context) {
	c := x.rec.Cursor
	if c == nil || c.Phase != phaseTask || c.Task == nil || c.Task.Kind == resActivity || c.Task.Submitted {
		return
	}
	t := c.Task
	if x.invoking == t.Token {
		return
	}
	var fn string
	var payload []byte
	if t.Kind == resLambdaLegacy {
		fn, payload = t.Resource, encodeJSON(t.Input)
	} else {
		m, _ := t.Input.(map[string]any)
		fn, _ = m["FunctionName"].(string)
		if q, ok := m["Qualifier"].(string); ok && q != "" {
			fn += ":" + q
		}
		if p, ok := m["Payload"]; ok {
			payload = encodeJSON(p)
		}
	}
	ictx, cancel := context.WithCancel(ctx)
	x.invoking, x.invokeCancel = t.Token, cancel
	token := t.Token
	inv := x.ep.opts.Invoker
	x.ep.wg.Add(1)
	go func() {
		defer x.ep.wg.Done()
		defer cancel()
		var m execMsg
		switch {
		case fn == "":
			m.callErr = &invokeError{code: "InvalidParameterValueException", msg: "FunctionName must be a non-empty string"}
		case inv == nil:
			m.callErr = &invokeError{code: "ServiceException", msg: "no Lambda invoker is configured on the local Step Functions endpoint"}
		default:
			m.out, m.fnError, m.callErr = inv.Invoke(ictx, fn, payload)
		}
		if ictx.Err() != nil {
			return
		}
		m.kind, m.token = msgInvokeDone, token
		select {
		case x.inbox <- m:
		case <-x.done:
		case <-ctx.Done():
		}
	}()
}

type invokeError struct{ code, msg string }

func (e *invokeError) Error() string     { return e.code + ": " + e.msg }
func (e *invokeError) ErrorCode() string { return e.code }

// lambdaFailure turns an Invoke outcome into a States error (spec §3.1): the function's errorType (or
// Lambda.Unknown), or Lambda.<service error code>.
func lambdaFailure(m execMsg) *stateError {
	if m.callErr != nil {
		code := "SdkClientException"
		var coded interface{ ErrorCode() string }
		if errors.As(m.callErr, &coded) {
			code = coded.ErrorCode()
		}
		return newStateError("Lambda."+code, m.callErr.Error())
	}
	var p struct {
		ErrorType string `json:"errorType"`
	}
	_ = json.Unmarshal(m.out, &p)
	name := p.ErrorType
	if name == "" {
		name = "Lambda.Unknown"
	}
	return newStateError(name, string(m.out))
}

func (x *execution) onInvokeDone(t *openTask, m execMsg) bool {
	if m.callErr != nil || m.fnError != "" {
		se := lambdaFailure(m)
		d := map[string]any{"error": *se.Name, "cause": *se.Cause}
		if t.Kind == resLambdaLegacy {
			x.event("LambdaFunctionFailed", d)
		} else {
			d["resourceType"], d["resource"] = "lambda", t.Resource
			x.event("TaskFailed", d)
		}
		x.taskError(se)
		return true
	}
	var payload any = ""
	if len(m.out) > 0 {
		v, err := decodeJSON(m.out)
		if err != nil {
			v = string(m.out)
		}
		payload = v
	}
	if t.Kind == resLambdaLegacy {
		x.event("LambdaFunctionSucceeded", map[string]any{"output": encodeString(payload), "outputDetails": map[string]any{"truncated": false}})
		x.completeTask(payload)
		return true
	}
	wrapper := map[string]any{
		"ExecutedVersion": "$LATEST",
		"Payload":         payload,
		"SdkHttpMetadata": map[string]any{
			"AllHttpHeaders": map[string]any{},
			"HttpHeaders":    map[string]any{},
			"HttpStatusCode": json.Number("200"),
		},
		"SdkResponseMetadata": map[string]any{"RequestId": x.ep.opts.NewID()},
		"StatusCode":          json.Number("200"),
	}
	if t.Kind == resLambdaCallback {
		t.Submitted = true
		x.event("TaskSubmitted", map[string]any{"resourceType": "lambda", "resource": t.Resource, "output": encodeString(wrapper), "outputDetails": map[string]any{"truncated": false}})
		return true
	}
	x.event("TaskSucceeded", map[string]any{"resourceType": "lambda", "resource": t.Resource, "output": encodeString(wrapper), "outputDetails": map[string]any{"truncated": false}})
	x.completeTask(wrapper)
	return true
}

// completeTask applies ResultSelector, ResultPath and OutputPath to a task result and leaves the state.
func (x *execution) completeTask(result any) {
	c := x.rec.Cursor
	st := x.def.States[c.State]
	x.closeTask()
	if len(encodeJSON(result)) > maxPayloadBytes {
		x.taskError(newStateError(errDataLimitExceeded, fmt.Sprintf("The state/task '%s' returned a result with a size exceeding the maximum number of bytes service limit.", st.Resource)))
		return
	}
	ctx := x.contextObject(st, "")
	var err error
	if st.ResultSelector != nil {
		result, err = st.ResultSelector.eval(result, ctx)
	}
	var out any
	if err == nil {
		out, err = applyResultPath(st.ResultPath, c.Input, result)
	}
	if err == nil {
		out, err = applyInputPath(st.OutputPath, out, ctx)
	}
	if err != nil {
		x.taskError(x.stateErrorPrefix(asStateError(err)))
		return
	}
	x.exitState(st, out)
}

// taskError applies Retry then Catch (spec §4.8) to an error of the current Task attempt.
func (x *execution) taskError(se *stateError) {
	c := x.rec.Cursor
	st := x.def.States[c.State]
	x.closeTask()
	if deref(se.Name) == errRuntime || st.Type != "Task" {
		x.fail(se)
		return
	}
	if len(c.RetrierAttempts) != len(st.Retry) {
		c.RetrierAttempts = make([]int64, len(st.Retry))
	}
	for i, r := range st.Retry {
		if !errorMatches(r.ErrorEquals, se) {
			continue
		}
		if c.RetrierAttempts[i] >= r.MaxAttempts {
			break
		}
		c.RetrierAttempts[i]++
		c.RetryCount++
		wake := x.ep.clock.Now().Add(retryDelay(r, c.RetrierAttempts[i], x.ep.opts.Rand))
		c.Phase, c.WakeAt = phaseRetry, &wake
		return
	}
	for _, cat := range st.Catch {
		if !errorMatches(cat.ErrorEquals, se) {
			continue
		}
		errOut := map[string]any{"Error": nil, "Cause": nil}
		if se.Name != nil {
			errOut["Error"] = *se.Name
		}
		if se.Cause != nil {
			errOut["Cause"] = *se.Cause
		} else if se.Name != nil {
			errOut["Cause"] = ""
		}
		out, err := applyResultPath(cat.ResultPath, c.Input, errOut)
		if err != nil {
			x.fail(asStateError(err))
			return
		}
		x.exitTo(st, out, cat.Next)
		return
	}
	x.fail(se)
}
