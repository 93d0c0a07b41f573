package sfn_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/local/sfn"
)

const roleARN = "arn:aws:iam::123456789012:role/local"

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// stack is one endpoint on an httptest server and an sfn client pointed at it.
type stack struct {
	ep     *sfn.Endpoint
	srv    *httptest.Server
	client *awssfn.Client
}

func newStack(t *testing.T, opts sfn.Options) *stack {
	t.Helper()
	if opts.ActivityPollTimeout == 0 {
		opts.ActivityPollTimeout = time.Second
	}
	ep, err := sfn.New(opts)
	if err != nil {
		t.Fatalf("sfn.New: %v", err)
	}
	srv := httptest.NewServer(ep)
	s := &stack{ep: ep, srv: srv, client: newClient(srv.URL)}
	t.Cleanup(func() { s.close() })
	return s
}

func (s *stack) close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
	_ = s.ep.Close()
}

func newClient(url string) *awssfn.Client {
	cfg := aws.Config{
		Region: "us-east-1",
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "local", SecretAccessKey: "local"}, nil
		}),
	}
	return awssfn.NewFromConfig(cfg, func(o *awssfn.Options) {
		o.BaseEndpoint = aws.String(url)
		o.RetryMaxAttempts = 1
	})
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// createMachine creates a state machine with a unique name and returns its ARN.
func (s *stack) createMachine(t *testing.T, definition string) string {
	t.Helper()
	name := unsafeName.ReplaceAllString(t.Name(), "-")
	if len(name) > 70 {
		name = name[len(name)-70:]
	}
	out, err := s.client.CreateStateMachine(ctx(t), &awssfn.CreateStateMachineInput{
		Name: aws.String(name), Definition: aws.String(definition), RoleArn: aws.String(roleARN),
	})
	if err != nil {
		t.Fatalf("CreateStateMachine: %v", err)
	}
	return aws.ToString(out.StateMachineArn)
}

func (s *stack) start(t *testing.T, machineARN, name, input string) string {
	t.Helper()
	in := &awssfn.StartExecutionInput{StateMachineArn: aws.String(machineARN), Input: aws.String(input)}
	if name != "" {
		in.Name = aws.String(name)
	}
	out, err := s.client.StartExecution(ctx(t), in)
	if err != nil {
		t.Fatalf("StartExecution: %v", err)
	}
	return aws.ToString(out.ExecutionArn)
}

// await polls DescribeExecution until the execution leaves RUNNING.
func (s *stack) await(t *testing.T, execARN string) *awssfn.DescribeExecutionOutput {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, err := s.client.DescribeExecution(ctx(t), &awssfn.DescribeExecutionInput{ExecutionArn: aws.String(execARN)})
		if err != nil {
			t.Fatalf("DescribeExecution: %v", err)
		}
		if out.Status != types.ExecutionStatusRunning {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("execution %s still RUNNING", execARN)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// run starts an execution and waits for its end.
func (s *stack) run(t *testing.T, definition, input string) *awssfn.DescribeExecutionOutput {
	t.Helper()
	return s.await(t, s.start(t, s.createMachine(t, definition), "", input))
}

func (s *stack) history(t *testing.T, execARN string) []types.HistoryEvent {
	t.Helper()
	var events []types.HistoryEvent
	p := awssfn.NewGetExecutionHistoryPaginator(s.client, &awssfn.GetExecutionHistoryInput{ExecutionArn: aws.String(execARN)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx(t))
		if err != nil {
			t.Fatalf("GetExecutionHistory: %v", err)
		}
		events = append(events, page.Events...)
	}
	return events
}

func eventTypes(events []types.HistoryEvent) []string {
	var out []string
	for _, e := range events {
		out = append(out, string(e.Type))
	}
	return out
}

// waitForEvent polls the history until an event of typ appears.
func (s *stack) waitForEvent(t *testing.T, execARN string, typ types.HistoryEventType) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, e := range s.history(t, execARN) {
			if e.Type == typ {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no %s event in %s", typ, execARN)
}

func jsonValue(t *testing.T, s string) any {
	t.Helper()
	var v any
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %q: %v", s, err)
	}
	return v
}

func diffJSON(t *testing.T, want, got string) {
	t.Helper()
	if d := cmp.Diff(jsonValue(t, want), jsonValue(t, got)); d != "" {
		t.Errorf("output mismatch (-want +got):\n%s\ngot: %s", d, got)
	}
}

func mustAs[T error](t *testing.T, err error) T {
	t.Helper()
	var target T
	if !errors.As(err, &target) {
		t.Fatalf("error %v (%T) is not a %T", err, err, target)
	}
	return target
}

// fakeLambda is an Invoker whose functions are Go closures; it records every call.
type fakeLambda struct {
	mu    sync.Mutex
	fns   map[string]func(payload []byte) ([]byte, string, error)
	calls map[string]int
}

func newFakeLambda() *fakeLambda {
	return &fakeLambda{fns: map[string]func([]byte) ([]byte, string, error){}, calls: map[string]int{}}
}

func (f *fakeLambda) handle(name string, fn func(payload []byte) ([]byte, string, error)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fns[name] = fn
}

func (f *fakeLambda) count(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[name]
}

type notFound struct{ name string }

func (e notFound) Error() string     { return "Function not found: " + e.name }
func (e notFound) ErrorCode() string { return "ResourceNotFoundException" }

func (f *fakeLambda) Invoke(_ context.Context, fn string, payload []byte) ([]byte, string, error) {
	name := fn[strings.LastIndex(fn, ":")+1:]
	f.mu.Lock()
	h := f.fns[name]
	f.calls[name]++
	f.mu.Unlock()
	if h == nil {
		return nil, "", notFound{fn}
	}
	return h(payload)
}

// fnError builds the error payload of a failed function with errorType name.
func fnError(name, msg string) ([]byte, string, error) {
	b, _ := json.Marshal(map[string]string{"errorType": name, "errorMessage": msg})
	return b, "Unhandled", nil
}
