package sfn

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sort"
	"sync"
	"time"
)

// Invoker is the port through which Lambda tasks run (spec §3.1–3.3). Invoke calls the function (a name or
// ARN, optionally with a qualifier) synchronously with payload as the event and returns the response payload.
// functionError is non-empty when the function failed (the X-Amz-Function-Error value, e.g. "Unhandled");
// out then holds the error payload {"errorType","errorMessage",…}, whose errorType becomes the States error
// name. err is a Lambda service or transport error; when it has an ErrorCode() method (smithy.APIError) the
// task fails with "Lambda.<code>", otherwise with "Lambda.SdkClientException".
type Invoker interface {
	Invoke(ctx context.Context, functionARN string, payload []byte) (out []byte, functionError string, err error)
}

// Options configures New. The zero value is a usable in-memory endpoint without Lambda.
type Options struct {
	// DataDir, when set, is the folder where state machines, activities and executions (cursor, history,
	// open task tokens) are written at every transition and from which New resumes them (spec §2.13).
	// Empty: everything is in memory and lost on Close.
	DataDir string
	// Clock is the time source; nil means the wall clock.
	Clock Clock
	// NewID returns a fresh unique id (execution names when none is given, token nonces, request ids);
	// nil means random UUIDs.
	NewID func() string
	// Rand returns a number in [0,1) for JitterStrategy FULL; nil means math/rand/v2.
	Rand func() float64
	// Region and AccountID go into the ARNs the endpoint mints; defaults "us-east-1" and "123456789012"
	// (Baton's local stack passes "000000000000", docs/internals.md).
	Region    string
	AccountID string
	// Invoker runs Lambda tasks; nil makes every Lambda task fail with Lambda.ServiceException.
	Invoker Invoker
	// ActivityPollTimeout is how long GetActivityTask holds a request when no task is queued; 0 means 60 s
	// as on AWS (spec §2.10). Tests use about 1 s.
	ActivityPollTimeout time.Duration
	// Logger receives persistence failures and similar internal errors; nil means slog.Default().
	Logger *slog.Logger
}

// Endpoint is the local Step Functions service: an http.Handler for the awsJson1_0 protocol (ServeHTTP), the
// interpreter of every execution and the activity queues. Create it with New and end it with Close.
type Endpoint struct {
	opts  Options
	clock Clock
	log   *slog.Logger
	store *fileStore

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu         sync.Mutex
	closed     bool
	machines   map[string]*stateMachine
	activities map[string]*activity
	executions map[string]*execution
	queues     map[string]*activityQueue
	started    int64
}

type stateMachine struct {
	ARN          string    `json:"arn"`
	Name         string    `json:"name"`
	Definition   string    `json:"definition"`
	RoleARN      string    `json:"roleArn"`
	Type         string    `json:"type"`
	CreationDate time.Time `json:"creationDate"`
	UpdateDate   time.Time `json:"updateDate,omitempty"`
	def          *definition
}

type activity struct {
	ARN          string    `json:"arn"`
	Name         string    `json:"name"`
	CreationDate time.Time `json:"creationDate"`
}

type activityQueue struct {
	tasks  []queuedTask
	signal chan struct{} // closed and replaced whenever a task is queued
}

type queuedTask struct {
	token string
	input string
	exec  *execution
	at    time.Time
}

// New opens the endpoint. With Options.DataDir it loads every state machine, activity and execution found
// there and resumes running executions: parked task tokens are accepted again, activity tasks not yet handed
// to a worker are queued again, handed-out ones keep their deadlines, and recorded task results are never
// re-run. It fails when the folder cannot be created or a file cannot be decoded.
func New(opts Options) (*Endpoint, error) {
	if opts.Region == "" {
		opts.Region = "us-east-1"
	}
	if opts.AccountID == "" {
		opts.AccountID = "123456789012"
	}
	if opts.NewID == nil {
		opts.NewID = newUUID
	}
	if opts.Rand == nil {
		opts.Rand = rand.Float64
	}
	if opts.ActivityPollTimeout <= 0 {
		opts.ActivityPollTimeout = 60 * time.Second
	}
	ep := &Endpoint{
		opts:       opts,
		clock:      opts.Clock,
		log:        opts.Logger,
		machines:   map[string]*stateMachine{},
		activities: map[string]*activity{},
		executions: map[string]*execution{},
		queues:     map[string]*activityQueue{},
	}
	if ep.clock == nil {
		ep.clock = wallClock{}
	}
	if ep.log == nil {
		ep.log = slog.Default()
	}
	ep.ctx, ep.cancel = context.WithCancel(context.Background())
	if opts.DataDir != "" {
		st, err := openFileStore(opts.DataDir)
		if err != nil {
			return nil, err
		}
		ep.store = st
		if err := ep.load(); err != nil {
			return nil, err
		}
	}
	return ep, nil
}

func (ep *Endpoint) load() error {
	err := ep.store.loadAll(kindMachines, func(dec *json.Decoder) error {
		var sm stateMachine
		if err := dec.Decode(&sm); err != nil {
			return err
		}
		d, err := parseDefinition(sm.Definition)
		if err != nil {
			return fmt.Errorf("state machine %s: %w", sm.ARN, err)
		}
		sm.def = d
		ep.machines[sm.ARN] = &sm
		return nil
	})
	if err != nil {
		return err
	}
	err = ep.store.loadAll(kindActivities, func(dec *json.Decoder) error {
		var a activity
		if err := dec.Decode(&a); err != nil {
			return err
		}
		ep.activities[a.ARN] = &a
		return nil
	})
	if err != nil {
		return err
	}
	var queued []queuedTask
	var running []*execution
	err = ep.store.loadAll(kindExecutions, func(dec *json.Decoder) error {
		var rec execRecord
		if err := dec.Decode(&rec); err != nil {
			return err
		}
		x, err := ep.newExecution(rec)
		if err != nil {
			return err
		}
		ep.executions[rec.ExecutionARN] = x
		if rec.Status == statusRunning {
			running = append(running, x)
			if c := rec.Cursor; c != nil && c.Phase == phaseTask && c.Task != nil && c.Task.Kind == resActivity && !c.Task.Started {
				queued = append(queued, queuedTask{token: c.Task.Token, input: encodeString(c.Task.Input), exec: x, at: c.Task.ScheduledAt})
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Slice(queued, func(i, j int) bool { return queued[i].at.Before(queued[j].at) })
	for _, q := range queued {
		ep.enqueueLocked(q.exec.rec.Cursor.Task.Resource, q)
	}
	for _, x := range running {
		ep.startActor(x)
	}
	return nil
}

// Close stops every execution goroutine and waiting poller and waits for them. Executions stay RUNNING in
// DataDir and resume in the next New on the same folder. Close is idempotent.
func (ep *Endpoint) Close() error {
	ep.mu.Lock()
	ep.closed = true
	ep.mu.Unlock()
	ep.cancel()
	ep.wg.Wait()
	return nil
}

// Stats is the benchmark view of the endpoint (GET /_baton/stats): StateTransitions counts state entries and
// retry attempts, the unit Step Functions bills.
type Stats struct {
	StateTransitions  int64                     `json:"state_transitions"`
	ExecutionsStarted int64                     `json:"executions_started"`
	ByStatus          map[string]int            `json:"executions_by_status"`
	Executions        map[string]ExecutionStats `json:"executions"` // by execution ARN
}

// ExecutionStats is the per-execution part of Stats.
type ExecutionStats struct {
	Status           string `json:"status"`
	StateTransitions int64  `json:"state_transitions"`
	HistoryEvents    int    `json:"history_events"`
}

// Stats returns counters over every execution the endpoint knows (including resumed ones).
func (ep *Endpoint) Stats() Stats {
	ep.mu.Lock()
	list := make([]*execution, 0, len(ep.executions))
	for _, x := range ep.executions {
		list = append(list, x)
	}
	s := Stats{ExecutionsStarted: ep.started, ByStatus: map[string]int{}, Executions: map[string]ExecutionStats{}}
	ep.mu.Unlock()
	for _, x := range list {
		x.mu.Lock()
		es := ExecutionStats{Status: x.rec.Status, StateTransitions: x.rec.Transitions, HistoryEvents: len(x.rec.History)}
		arn := x.rec.ExecutionARN
		x.mu.Unlock()
		s.Executions[arn] = es
		s.ByStatus[es.Status]++
		s.StateTransitions += es.StateTransitions
	}
	return s
}

func (ep *Endpoint) arn(resource, name string) string {
	return fmt.Sprintf("arn:aws:states:%s:%s:%s:%s", ep.opts.Region, ep.opts.AccountID, resource, name)
}

func (ep *Endpoint) now() time.Time { return ep.clock.Now().UTC().Truncate(time.Millisecond) }

// enqueueLocked queues an activity task (callers hold no execution lock requirement; takes ep.mu).
func (ep *Endpoint) enqueueLocked(activityARN string, t queuedTask) {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	q := ep.queueFor(activityARN)
	q.tasks = append(q.tasks, t)
	close(q.signal)
	q.signal = make(chan struct{})
}

func (ep *Endpoint) queueFor(activityARN string) *activityQueue {
	q := ep.queues[activityARN]
	if q == nil {
		q = &activityQueue{signal: make(chan struct{})}
		ep.queues[activityARN] = q
	}
	return q
}

func (ep *Endpoint) dequeue(activityARN, token string) {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	q := ep.queues[activityARN]
	if q == nil {
		return
	}
	for i, t := range q.tasks {
		if t.token == token {
			q.tasks = append(q.tasks[:i:i], q.tasks[i+1:]...)
			return
		}
	}
}

func (ep *Endpoint) activityExists(arn string) bool {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	return ep.activities[arn] != nil
}

// pollActivity implements the GetActivityTask long poll (spec §2.10). It returns an empty token when nothing
// was queued within the hold time, and never hands a task to a poller whose ctx is done.
func (ep *Endpoint) pollActivity(ctx context.Context, activityARN, worker string) (string, string, error) {
	timer := ep.clock.NewTimer(ep.opts.ActivityPollTimeout)
	defer timer.Stop()
	for {
		ep.mu.Lock()
		if ep.activities[activityARN] == nil {
			ep.mu.Unlock()
			return "", "", apiErr(CodeActivityDoesNotExist, "Activity Does Not Exist: '%s'", activityARN)
		}
		q := ep.queueFor(activityARN)
		if len(q.tasks) > 0 && ctx.Err() == nil {
			t := q.tasks[0]
			q.tasks = q.tasks[1:]
			ep.mu.Unlock()
			err := t.exec.call(context.WithoutCancel(ctx), execMsg{kind: msgActivityStarted, token: t.token, worker: worker})
			if err == nil {
				return t.token, t.input, nil
			}
			continue
		}
		sig := q.signal
		ep.mu.Unlock()
		select {
		case <-sig:
		case <-timer.C():
			return "", "", nil
		case <-ctx.Done():
			return "", "", ctx.Err()
		case <-ep.ctx.Done():
			return "", "", nil
		}
	}
}

func (ep *Endpoint) persist(kind, arn string, v any) {
	if ep.store == nil {
		return
	}
	data, err := json.Marshal(v)
	if err == nil {
		err = ep.store.put(kind, arn, data)
	}
	if err != nil {
		ep.log.Error("sfn: persist", "kind", kind, "arn", arn, "err", err)
	}
}
