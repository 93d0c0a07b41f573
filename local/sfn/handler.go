package sfn

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// StatsPath is the route of the JSON counters (GET; body: Stats) on the same handler.
const StatsPath = "/_baton/stats"

// ServeHTTP implements http.Handler for the awsJson1_0 protocol (spec §1): POST on any path with
// X-Amz-Target: AWSStepFunctions.<Op> and a JSON object body; modeled errors are HTTP 400 with
// {"__type","message"}. GET StatsPath returns Stats. Signatures are not checked.
func (ep *Endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == StatsPath {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(ep.Stats())
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, &APIError{Code: CodeUnknownOperation, Message: "only POST is supported", HTTPStatus: http.StatusMethodNotAllowed})
		return
	}
	op, ok := strings.CutPrefix(r.Header.Get("X-Amz-Target"), "AWSStepFunctions.")
	h, known := operations[op]
	if !ok || !known {
		writeError(w, apiErr(CodeUnknownOperation, "Operation %q is not supported by the local Step Functions endpoint", r.Header.Get("X-Amz-Target")))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		writeError(w, apiErr(CodeSerialization, "cannot read the request body"))
		return
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		body = []byte("{}")
	}
	ep.mu.Lock()
	closed := ep.closed
	ep.mu.Unlock()
	if closed {
		writeError(w, &APIError{Code: "ServiceUnavailable", Message: "the endpoint is closed", HTTPStatus: http.StatusServiceUnavailable})
		return
	}
	out, err := h(ep, r.Context(), body)
	if err != nil {
		var ae *APIError
		if !errors.As(err, &ae) {
			if errors.Is(err, context.Canceled) {
				return
			}
			ep.log.Error("sfn: operation failed", "op", op, "err", err)
			ae = &APIError{Code: "InternalFailure", Message: "internal error", HTTPStatus: http.StatusInternalServerError}
		}
		writeError(w, ae)
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("x-amzn-RequestId", ep.opts.NewID())
	if out == nil {
		out = struct{}{}
	}
	_ = json.NewEncoder(w).Encode(out)
}

func writeError(w http.ResponseWriter, e *APIError) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(e.HTTPStatus)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": "com.amazonaws.swf.service.v2.model#" + e.Code, "message": e.Message})
}

type opFunc func(ep *Endpoint, ctx context.Context, body []byte) (any, error)

func op[Req any](f func(ep *Endpoint, ctx context.Context, req *Req) (any, error)) opFunc {
	return func(ep *Endpoint, ctx context.Context, body []byte) (any, error) {
		req := new(Req)
		if err := json.Unmarshal(body, req); err != nil {
			return nil, apiErr(CodeSerialization, "the request body is not a valid JSON object for this operation: %v", err)
		}
		return f(ep, ctx, req)
	}
}

var operations map[string]opFunc

func init() {
	operations = map[string]opFunc{
		"CreateStateMachine":   op((*Endpoint).createStateMachine),
		"DescribeStateMachine": op((*Endpoint).describeStateMachine),
		"UpdateStateMachine":   op((*Endpoint).updateStateMachine),
		"ListStateMachines":    op((*Endpoint).listStateMachines),
		"DeleteStateMachine":   op((*Endpoint).deleteStateMachine),
		"StartExecution":       op((*Endpoint).startExecution),
		"DescribeExecution":    op((*Endpoint).describeExecution),
		"StopExecution":        op((*Endpoint).stopExecution),
		"ListExecutions":       op((*Endpoint).listExecutions),
		"GetExecutionHistory":  op((*Endpoint).getExecutionHistory),
		"CreateActivity":       op((*Endpoint).createActivity),
		"DescribeActivity":     op((*Endpoint).describeActivity),
		"ListActivities":       op((*Endpoint).listActivities),
		"DeleteActivity":       op((*Endpoint).deleteActivity),
		"GetActivityTask":      op((*Endpoint).getActivityTask),
		"SendTaskSuccess":      op((*Endpoint).sendTaskSuccess),
		"SendTaskFailure":      op((*Endpoint).sendTaskFailure),
		"SendTaskHeartbeat":    op((*Endpoint).sendTaskHeartbeat),
	}
}

// epochTime marshals as epoch seconds with millisecond fraction (spec §1.2).
type epochTime time.Time

func (t epochTime) MarshalJSON() ([]byte, error) {
	ms := time.Time(t).UnixMilli()
	return []byte(strconv.FormatFloat(float64(ms)/1000, 'f', 3, 64)), nil
}

func epoch(t time.Time) *epochTime { e := epochTime(t); return &e }

// ---- validation ----

var badName = regexp.MustCompile("[\\s<>{}\\[\\]?*\"#%\\\\^|~`$&,;:/\\x00-\\x1f\\x7f-\\x9f\\x{FFFE}\\x{FFFF}]")

func checkName(name string) error {
	if name == "" || utf8.RuneCountInString(name) > 80 || !utf8.ValidString(name) || badName.MatchString(name) {
		return apiErr(CodeInvalidName, "Invalid Name: '%s'", name)
	}
	return nil
}

func checkARN(arn, resource string) error {
	if !strings.HasPrefix(arn, "arn:") {
		return apiErr(CodeInvalidArn, "Invalid Arn: 'Invalid ARN prefix: %s'", arn)
	}
	parts := strings.Split(arn, ":")
	if len(parts) < 7 || parts[2] != "states" || parts[5] != resource {
		return apiErr(CodeInvalidArn, "Invalid Arn: 'Resource type not valid in this context: %s'", arn)
	}
	return nil
}

func required(field, v string) error {
	if v == "" {
		return &APIError{Code: CodeValidation, Message: fmt.Sprintf("1 validation error detected: Value at '%s' failed to satisfy constraint: Member must not be null", field), HTTPStatus: http.StatusBadRequest}
	}
	return nil
}

// pageToken encodes an offset for list/history pagination, bound to a scope (the listed resource).
func pageToken(scope string, offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(scope + "\x00" + strconv.Itoa(offset)))
}

func parsePageToken(scope, tok string) (int, error) {
	if tok == "" {
		return 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(tok)
	s, off, ok := strings.Cut(string(b), "\x00")
	n, aerr := strconv.Atoi(off)
	if err != nil || !ok || s != scope || aerr != nil || n < 0 {
		return 0, apiErr(CodeInvalidToken, "Invalid Token: 'Invalid token'")
	}
	return n, nil
}

func page[T any](items []T, scope, token string, maxResults int) ([]T, string, error) {
	off, err := parsePageToken(scope, token)
	if err != nil {
		return nil, "", err
	}
	if maxResults <= 0 {
		maxResults = 100
	}
	if off > len(items) {
		off = len(items)
	}
	end := min(off+maxResults, len(items))
	next := ""
	if end < len(items) {
		next = pageToken(scope, end)
	}
	return items[off:end], next, nil
}

// ---- state machines (spec §2.2, §2.3) ----

type createStateMachineInput struct {
	Name       string `json:"name"`
	Definition string `json:"definition"`
	RoleARN    string `json:"roleArn"`
	Type       string `json:"type"`
}

func (ep *Endpoint) createStateMachine(_ context.Context, in *createStateMachineInput) (any, error) {
	if err := errors.Join(required("name", in.Name), required("definition", in.Definition), required("roleArn", in.RoleARN)); err != nil {
		return nil, firstAPIError(err)
	}
	if err := checkName(in.Name); err != nil {
		return nil, err
	}
	if in.Type == "" {
		in.Type = "STANDARD"
	}
	if in.Type != "STANDARD" {
		return nil, apiErr(CodeStateMachineTypeNotSupported, "State Machine Type Not Supported: '%s' (the local endpoint runs STANDARD only)", in.Type)
	}
	d, err := parseDefinition(in.Definition)
	if err != nil {
		return nil, apiErr(CodeInvalidDefinition, "%s", err.Error())
	}
	arn := ep.arn("stateMachine", in.Name)
	ep.mu.Lock()
	if sm := ep.machines[arn]; sm != nil {
		ep.mu.Unlock()
		if sm.Definition != in.Definition {
			return nil, apiErr(CodeStateMachineAlreadyExists, "State Machine Already Exists: '%s'", arn)
		}
		return map[string]any{"stateMachineArn": arn, "creationDate": epoch(sm.CreationDate)}, nil
	}
	sm := &stateMachine{ARN: arn, Name: in.Name, Definition: in.Definition, RoleARN: in.RoleARN, Type: in.Type, CreationDate: ep.now(), def: d}
	ep.machines[arn] = sm
	ep.mu.Unlock()
	ep.persist(kindMachines, arn, sm)
	return map[string]any{"stateMachineArn": arn, "creationDate": epoch(sm.CreationDate)}, nil
}

func firstAPIError(err error) error {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae
	}
	return err
}

type stateMachineARNInput struct {
	StateMachineARN string `json:"stateMachineArn"`
	Definition      string `json:"definition"`
	RoleARN         string `json:"roleArn"`
	MaxResults      int    `json:"maxResults"`
	NextToken       string `json:"nextToken"`
	StatusFilter    string `json:"statusFilter"`
}

func (ep *Endpoint) machine(arn string) (*stateMachine, error) {
	if err := required("stateMachineArn", arn); err != nil {
		return nil, err
	}
	if err := checkARN(arn, "stateMachine"); err != nil {
		return nil, err
	}
	ep.mu.Lock()
	defer ep.mu.Unlock()
	sm := ep.machines[arn]
	if sm == nil {
		return nil, apiErr(CodeStateMachineDoesNotExist, "State Machine Does Not Exist: '%s'", arn)
	}
	return sm, nil
}

func (ep *Endpoint) describeStateMachine(_ context.Context, in *stateMachineARNInput) (any, error) {
	sm, err := ep.machine(in.StateMachineARN)
	if err != nil {
		return nil, err
	}
	ep.mu.Lock()
	defer ep.mu.Unlock()
	return map[string]any{
		"stateMachineArn": sm.ARN, "name": sm.Name, "status": "ACTIVE", "definition": sm.Definition,
		"roleArn": sm.RoleARN, "type": sm.Type, "creationDate": epoch(sm.CreationDate),
		"loggingConfiguration": map[string]any{"level": "OFF", "includeExecutionData": false},
		"tracingConfiguration": map[string]any{"enabled": false},
	}, nil
}

func (ep *Endpoint) updateStateMachine(_ context.Context, in *stateMachineARNInput) (any, error) {
	sm, err := ep.machine(in.StateMachineARN)
	if err != nil {
		return nil, err
	}
	var d *definition
	if in.Definition != "" {
		if d, err = parseDefinition(in.Definition); err != nil {
			return nil, apiErr(CodeInvalidDefinition, "%s", err.Error())
		}
	}
	ep.mu.Lock()
	if d != nil {
		sm.Definition, sm.def = in.Definition, d
	}
	if in.RoleARN != "" {
		sm.RoleARN = in.RoleARN
	}
	sm.UpdateDate = ep.now()
	cp := *sm
	ep.mu.Unlock()
	ep.persist(kindMachines, sm.ARN, &cp)
	return map[string]any{"updateDate": epoch(cp.UpdateDate), "revisionId": strconv.FormatInt(cp.UpdateDate.UnixMilli(), 10)}, nil
}

func (ep *Endpoint) listStateMachines(_ context.Context, in *stateMachineARNInput) (any, error) {
	ep.mu.Lock()
	var items []map[string]any
	for _, sm := range ep.machines {
		items = append(items, map[string]any{"stateMachineArn": sm.ARN, "name": sm.Name, "type": sm.Type, "creationDate": epoch(sm.CreationDate)})
	}
	ep.mu.Unlock()
	sort.Slice(items, func(i, j int) bool { return items[i]["name"].(string) < items[j]["name"].(string) })
	got, next, err := page(items, "statemachines", in.NextToken, in.MaxResults)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"stateMachines": nonNil(got)}
	if next != "" {
		out["nextToken"] = next
	}
	return out, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (ep *Endpoint) deleteStateMachine(_ context.Context, in *stateMachineARNInput) (any, error) {
	if err := required("stateMachineArn", in.StateMachineARN); err != nil {
		return nil, err
	}
	if err := checkARN(in.StateMachineARN, "stateMachine"); err != nil {
		return nil, err
	}
	ep.mu.Lock()
	delete(ep.machines, in.StateMachineARN)
	ep.mu.Unlock()
	if ep.store != nil {
		if err := ep.store.remove(kindMachines, in.StateMachineARN); err != nil {
			return nil, err
		}
	}
	return struct{}{}, nil
}

// ---- executions (spec §2.4–2.8) ----

type startExecutionInput struct {
	StateMachineARN string  `json:"stateMachineArn"`
	Name            string  `json:"name"`
	Input           *string `json:"input"`
}

func (ep *Endpoint) startExecution(_ context.Context, in *startExecutionInput) (any, error) {
	sm, err := ep.machine(in.StateMachineARN)
	if err != nil {
		return nil, err
	}
	name := in.Name
	if name == "" {
		name = ep.opts.NewID()
	}
	if err := checkName(name); err != nil {
		return nil, err
	}
	input := "{}"
	if in.Input != nil {
		input = *in.Input
	}
	if len(input) > maxPayloadBytes {
		return nil, apiErr(CodeValidation, "1 validation error detected: Value at 'input' failed to satisfy constraint: Member must have length less than or equal to 262144")
	}
	if strings.TrimSpace(input) == "" {
		return nil, apiErr(CodeInvalidExecutionInput, "Invalid State Machine Execution Input: 'Invalid execution input.'")
	}
	if _, err := decodeJSON([]byte(input)); err != nil {
		return nil, apiErr(CodeInvalidExecutionInput, "Invalid State Machine Execution Input: '%v'", err)
	}
	arn := ep.arn("execution", sm.Name+":"+name)
	ep.mu.Lock()
	if x := ep.executions[arn]; x != nil {
		ep.mu.Unlock()
		x.mu.Lock()
		defer x.mu.Unlock()
		if x.rec.Status == statusRunning && x.rec.Input == input {
			return map[string]any{"executionArn": arn, "startDate": epoch(x.rec.StartDate)}, nil
		}
		return nil, apiErr(CodeExecutionAlreadyExists, "Execution Already Exists: '%s'", arn)
	}
	now := ep.now()
	rec := execRecord{
		ExecutionARN: arn, StateMachineARN: sm.ARN, StateMachineName: sm.Name, Name: name, RoleARN: sm.RoleARN,
		Definition: sm.Definition, Input: input, Status: statusRunning, StartDate: now,
		Cursor: &cursor{Phase: phaseEnter, State: sm.def.StartAt},
	}
	x := &execution{ep: ep, def: sm.def, rec: rec, inbox: make(chan execMsg), done: make(chan struct{})}
	x.input, _ = decodeJSON([]byte(input))
	x.rec.Cursor.Input = deepCopy(x.input)
	x.event("ExecutionStarted", map[string]any{"input": input, "inputDetails": map[string]any{"truncated": false}, "roleArn": sm.RoleARN})
	ep.executions[arn] = x
	ep.started++
	ep.mu.Unlock()
	x.save()
	ep.startActor(x)
	return map[string]any{"executionArn": arn, "startDate": epoch(now)}, nil
}

type executionARNInput struct {
	ExecutionARN         string  `json:"executionArn"`
	Error                *string `json:"error"`
	Cause                *string `json:"cause"`
	MaxResults           int     `json:"maxResults"`
	NextToken            string  `json:"nextToken"`
	ReverseOrder         bool    `json:"reverseOrder"`
	IncludeExecutionData *bool   `json:"includeExecutionData"`
}

func (ep *Endpoint) execution(arn string) (*execution, error) {
	if err := required("executionArn", arn); err != nil {
		return nil, err
	}
	if err := checkARN(arn, "execution"); err != nil {
		return nil, err
	}
	ep.mu.Lock()
	defer ep.mu.Unlock()
	x := ep.executions[arn]
	if x == nil {
		return nil, apiErr(CodeExecutionDoesNotExist, "Execution Does Not Exist: '%s'", arn)
	}
	return x, nil
}

func (ep *Endpoint) describeExecution(_ context.Context, in *executionARNInput) (any, error) {
	x, err := ep.execution(in.ExecutionARN)
	if err != nil {
		return nil, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	r := &x.rec
	out := map[string]any{
		"executionArn": r.ExecutionARN, "stateMachineArn": r.StateMachineARN, "name": r.Name, "status": r.Status,
		"startDate": epoch(r.StartDate), "input": r.Input, "inputDetails": map[string]any{"included": true}, "redriveCount": 0,
	}
	if r.StopDate != nil {
		out["stopDate"] = epoch(*r.StopDate)
	}
	if r.Status == statusSucceeded && r.Output != nil {
		out["output"] = *r.Output
		out["outputDetails"] = map[string]any{"included": true}
	}
	if r.Error != nil {
		out["error"] = *r.Error
	}
	if r.Cause != nil {
		out["cause"] = *r.Cause
	}
	return out, nil
}

func (ep *Endpoint) stopExecution(ctx context.Context, in *executionARNInput) (any, error) {
	x, err := ep.execution(in.ExecutionARN)
	if err != nil {
		return nil, err
	}
	stopped := make(chan time.Time, 1)
	m := execMsg{kind: msgStop, err: &stateError{Name: in.Error, Cause: in.Cause}, stopped: stopped}
	closedStop := func() (any, error) {
		select {
		case t := <-stopped:
			return map[string]any{"stopDate": epoch(t)}, nil
		default:
		}
		x.mu.Lock()
		defer x.mu.Unlock()
		if x.rec.StopDate == nil {
			return nil, ErrClosed
		}
		return map[string]any{"stopDate": epoch(*x.rec.StopDate)}, nil
	}
	select {
	case x.inbox <- m:
	case <-x.done:
		return closedStop()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case t := <-stopped:
		return map[string]any{"stopDate": epoch(t)}, nil
	case <-x.done:
		return closedStop()
	}
}

func (ep *Endpoint) listExecutions(_ context.Context, in *stateMachineARNInput) (any, error) {
	if _, err := ep.machine(in.StateMachineARN); err != nil {
		return nil, err
	}
	ep.mu.Lock()
	var list []*execution
	for _, x := range ep.executions {
		list = append(list, x)
	}
	ep.mu.Unlock()
	type item struct {
		start time.Time
		arn   string
		m     map[string]any
	}
	var items []item
	for _, x := range list {
		x.mu.Lock()
		r := x.rec
		x.mu.Unlock()
		if r.StateMachineARN != in.StateMachineARN || (in.StatusFilter != "" && r.Status != in.StatusFilter) {
			continue
		}
		m := map[string]any{"executionArn": r.ExecutionARN, "stateMachineArn": r.StateMachineARN, "name": r.Name, "status": r.Status, "startDate": epoch(r.StartDate), "redriveCount": 0}
		if r.StopDate != nil {
			m["stopDate"] = epoch(*r.StopDate)
		}
		items = append(items, item{r.StartDate, r.ExecutionARN, m})
	}
	sort.Slice(items, func(i, j int) bool {
		if !items[i].start.Equal(items[j].start) {
			return items[i].start.After(items[j].start)
		}
		return items[i].arn > items[j].arn
	})
	maps := make([]map[string]any, len(items))
	for i, it := range items {
		maps[i] = it.m
	}
	got, next, err := page(maps, "executions:"+in.StateMachineARN+":"+in.StatusFilter, in.NextToken, in.MaxResults)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"executions": nonNil(got)}
	if next != "" {
		out["nextToken"] = next
	}
	return out, nil
}

func detailsMember(typ string) string {
	switch {
	case strings.HasSuffix(typ, "StateEntered"):
		return "stateEnteredEventDetails"
	case strings.HasSuffix(typ, "StateExited"):
		return "stateExitedEventDetails"
	}
	return strings.ToLower(typ[:1]) + typ[1:] + "EventDetails"
}

func (ep *Endpoint) getExecutionHistory(_ context.Context, in *executionARNInput) (any, error) {
	x, err := ep.execution(in.ExecutionARN)
	if err != nil {
		return nil, err
	}
	x.mu.Lock()
	events := append([]historyEvent(nil), x.rec.History...)
	x.mu.Unlock()
	if in.ReverseOrder {
		for i, j := 0, len(events)-1; i < j; i, j = i+1, j-1 {
			events[i], events[j] = events[j], events[i]
		}
	}
	withData := in.IncludeExecutionData == nil || *in.IncludeExecutionData
	scope := fmt.Sprintf("history:%s:%v", in.ExecutionARN, in.ReverseOrder)
	got, next, err := page(events, scope, in.NextToken, in.MaxResults)
	if err != nil {
		return nil, err
	}
	wire := make([]map[string]any, 0, len(got))
	for _, e := range got {
		m := map[string]any{"id": e.ID, "previousEventId": e.PreviousEventID, "timestamp": epoch(e.Timestamp), "type": e.Type}
		if e.Details != nil {
			d := e.Details
			if !withData {
				d = map[string]any{}
				for k, v := range e.Details {
					if k != "input" && k != "output" && k != "parameters" {
						d[k] = v
					}
				}
			}
			m[detailsMember(e.Type)] = d
		}
		wire = append(wire, m)
	}
	out := map[string]any{"events": wire}
	if next != "" {
		out["nextToken"] = next
	}
	return out, nil
}

// ---- activities (spec §2.9, §2.10) ----

type activityInput struct {
	Name        string `json:"name"`
	ActivityARN string `json:"activityArn"`
	WorkerName  string `json:"workerName"`
	MaxResults  int    `json:"maxResults"`
	NextToken   string `json:"nextToken"`
}

func (ep *Endpoint) createActivity(_ context.Context, in *activityInput) (any, error) {
	if err := required("name", in.Name); err != nil {
		return nil, err
	}
	if err := checkName(in.Name); err != nil {
		return nil, err
	}
	arn := ep.arn("activity", in.Name)
	ep.mu.Lock()
	a := ep.activities[arn]
	created := a == nil
	if created {
		a = &activity{ARN: arn, Name: in.Name, CreationDate: ep.now()}
		ep.activities[arn] = a
	}
	ep.mu.Unlock()
	if created {
		ep.persist(kindActivities, arn, a)
	}
	return map[string]any{"activityArn": arn, "creationDate": epoch(a.CreationDate)}, nil
}

func (ep *Endpoint) describeActivity(_ context.Context, in *activityInput) (any, error) {
	if err := required("activityArn", in.ActivityARN); err != nil {
		return nil, err
	}
	if err := checkARN(in.ActivityARN, "activity"); err != nil {
		return nil, err
	}
	ep.mu.Lock()
	defer ep.mu.Unlock()
	a := ep.activities[in.ActivityARN]
	if a == nil {
		return nil, apiErr(CodeActivityDoesNotExist, "Activity Does Not Exist: '%s'", in.ActivityARN)
	}
	return map[string]any{"activityArn": a.ARN, "name": a.Name, "creationDate": epoch(a.CreationDate), "encryptionConfiguration": map[string]any{"type": "AWS_OWNED_KEY"}}, nil
}

func (ep *Endpoint) listActivities(_ context.Context, in *activityInput) (any, error) {
	ep.mu.Lock()
	var items []map[string]any
	for _, a := range ep.activities {
		items = append(items, map[string]any{"activityArn": a.ARN, "name": a.Name, "creationDate": epoch(a.CreationDate)})
	}
	ep.mu.Unlock()
	sort.Slice(items, func(i, j int) bool { return items[i]["name"].(string) < items[j]["name"].(string) })
	got, next, err := page(items, "activities", in.NextToken, in.MaxResults)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"activities": nonNil(got)}
	if next != "" {
		out["nextToken"] = next
	}
	return out, nil
}

func (ep *Endpoint) deleteActivity(_ context.Context, in *activityInput) (any, error) {
	if err := required("activityArn", in.ActivityARN); err != nil {
		return nil, err
	}
	if err := checkARN(in.ActivityARN, "activity"); err != nil {
		return nil, err
	}
	ep.mu.Lock()
	delete(ep.activities, in.ActivityARN)
	ep.mu.Unlock()
	if ep.store != nil {
		if err := ep.store.remove(kindActivities, in.ActivityARN); err != nil {
			return nil, err
		}
	}
	return struct{}{}, nil
}

func (ep *Endpoint) getActivityTask(ctx context.Context, in *activityInput) (any, error) {
	if err := required("activityArn", in.ActivityARN); err != nil {
		return nil, err
	}
	if err := checkARN(in.ActivityARN, "activity"); err != nil {
		return nil, err
	}
	if in.WorkerName != "" && utf8.RuneCountInString(in.WorkerName) > 80 {
		return nil, apiErr(CodeValidation, "1 validation error detected: Value at 'workerName' failed to satisfy constraint: Member must have length less than or equal to 80")
	}
	token, input, err := ep.pollActivity(ctx, in.ActivityARN, in.WorkerName)
	if err != nil {
		return nil, err
	}
	if token == "" {
		return struct{}{}, nil
	}
	return map[string]any{"taskToken": token, "input": input}, nil
}

// ---- task tokens (spec §2.11–2.13) ----

type sendTaskInput struct {
	TaskToken string  `json:"taskToken"`
	Output    *string `json:"output"`
	Error     *string `json:"error"`
	Cause     *string `json:"cause"`
}

func (ep *Endpoint) taskExecution(token string) (*execution, error) {
	if token == "" || len(token) > 2048 {
		return nil, apiErr(CodeValidation, "1 validation error detected: Value at 'taskToken' failed to satisfy constraint: Member must have length between 1 and 2048")
	}
	claims, ok := parseToken(token)
	if !ok {
		return nil, apiErr(CodeInvalidToken, "Invalid Token: 'Invalid token'")
	}
	ep.mu.Lock()
	defer ep.mu.Unlock()
	x := ep.executions[claims.Execution]
	if x == nil {
		return nil, apiErr(CodeTaskDoesNotExist, "Task Does Not Exist: 'the execution of this task token is unknown to this endpoint'")
	}
	return x, nil
}

func (ep *Endpoint) sendTaskSuccess(ctx context.Context, in *sendTaskInput) (any, error) {
	x, err := ep.taskExecution(in.TaskToken)
	if err != nil {
		return nil, err
	}
	if in.Output == nil {
		return nil, apiErr(CodeValidation, "1 validation error detected: Value at 'output' failed to satisfy constraint: Member must not be null")
	}
	if len(*in.Output) > maxPayloadBytes {
		return nil, apiErr(CodeValidation, "1 validation error detected: Value at 'output' failed to satisfy constraint: Member must have length less than or equal to 262144")
	}
	v, err := decodeJSON([]byte(*in.Output))
	if err != nil {
		return nil, apiErr(CodeInvalidOutput, "Invalid Output: '%v'", err)
	}
	return struct{}{}, x.call(ctx, execMsg{kind: msgTaskSuccess, token: in.TaskToken, output: v})
}

func (ep *Endpoint) sendTaskFailure(ctx context.Context, in *sendTaskInput) (any, error) {
	x, err := ep.taskExecution(in.TaskToken)
	if err != nil {
		return nil, err
	}
	if in.Error != nil && len(*in.Error) > 256 || in.Cause != nil && len(*in.Cause) > 32768 {
		return nil, apiErr(CodeValidation, "1 validation error detected: error or cause is too long")
	}
	return struct{}{}, x.call(ctx, execMsg{kind: msgTaskFailure, token: in.TaskToken, err: &stateError{Name: in.Error, Cause: in.Cause}})
}

func (ep *Endpoint) sendTaskHeartbeat(ctx context.Context, in *sendTaskInput) (any, error) {
	x, err := ep.taskExecution(in.TaskToken)
	if err != nil {
		return nil, err
	}
	return struct{}{}, x.call(ctx, execMsg{kind: msgHeartbeat, token: in.TaskToken})
}
