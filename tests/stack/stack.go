package stack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/baton-run/baton/local/stackproc"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/setup"
)

// StateFileEnv names the environment variable that points Shared at an already running stack's state file.
const StateFileEnv = "BATON_TEST_STATE_FILE"

// Options configures a stack of a test's own. Zero values are the test defaults: in memory, one runtime,
// heartbeat timeout 10 s, GetActivityTask hold 2 s.
type Options struct {
	// DataDir keeps DynamoDB Local and the Step Functions endpoint on disk (a restart on the same DataDir keeps
	// the state); "" = in memory.
	DataDir string
	// HeartbeatSeconds is the activity heartbeat timeout; 0 = 10.
	HeartbeatSeconds int
	// ActivityPollSeconds is the GetActivityTask hold; 0 = 2.
	ActivityPollSeconds int
	// Runtimes is the number of harness runtimes; 0 = 1, negative = none.
	Runtimes int
	// ExtraArgs are appended to the baton-local command line.
	ExtraArgs []string
}

// Stack is a running local stack as a test sees it: its description (URLs, keys) and, when the test started it,
// the process. The embedded Stack fields are stackproc.Stack (APIURL, BaseURL, APIKey, AdminKey, SFNURL, …).
type Stack struct {
	stackproc.Stack
	// StateFile is the stack's state file (the -attach argument for a second API process).
	StateFile string

	proc *stackproc.Process
	http *http.Client
}

// Start runs a stack of the test's own and stops it (SIGTERM, then SIGKILL) when the test ends; it dumps the
// end of the stack's log when the test failed. Without bin/baton-local it skips the test, or fails it under
// CI=true.
func Start(t testing.TB, opts Options) *Stack {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p, err := stackproc.Start(ctx, stackproc.Options{DataDir: opts.DataDir, HeartbeatSeconds: opts.HeartbeatSeconds,
		ActivityPollSeconds: opts.ActivityPollSeconds, Runtimes: opts.Runtimes, ExtraArgs: opts.ExtraArgs})
	if err != nil {
		missing(t, err)
		t.Fatalf("start the local stack: %v", err)
	}
	st := fromProcess(p)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("end of the stack's log (%s):\n%s", p.LogFile, p.LogTail(60))
		}
		_ = p.Stop()
	})
	return st
}

// Attach starts one more Agents API process (baton-local -attach) that serves base's table and Step Functions
// endpoint on its own port, and stops it when the test ends. The result shares base's keys and AWS endpoints;
// only APIURL and BaseURL differ.
func Attach(t testing.TB, base *Stack) *Stack {
	t.Helper()
	if base.StateFile == "" {
		t.Fatal("stack.Attach: the base stack has no state file")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := stackproc.Start(ctx, stackproc.Options{Attach: base.StateFile})
	if err != nil {
		missing(t, err)
		t.Fatalf("start a second API process: %v", err)
	}
	st := fromProcess(p)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("end of the second API process's log (%s):\n%s", p.LogFile, p.LogTail(40))
		}
		_ = p.Stop()
	})
	return st
}

// Kill crashes the stack (SIGKILL to every process of it, see stackproc.Process.Kill) and waits until every
// process is gone. Only for a stack the test started.
func (s *Stack) Kill(t testing.TB) {
	t.Helper()
	if s.proc == nil {
		t.Fatal("stack.Kill: not a stack this test started")
	}
	if err := s.proc.Kill(); err != nil {
		t.Fatalf("kill the stack: %v", err)
	}
}

// Stop stops the stack gracefully now (it is also stopped at the end of the test).
func (s *Stack) Stop() {
	if s.proc != nil {
		_ = s.proc.Stop()
	}
}

func fromProcess(p *stackproc.Process) *Stack {
	return &Stack{Stack: p.Stack, StateFile: p.StateFile, proc: p, http: &http.Client{Timeout: 60 * time.Second}}
}

// missing skips (or, under CI=true, fails) the test when the stack binary does not exist.
func missing(t testing.TB, err error) {
	t.Helper()
	if !errors.Is(err, stackproc.ErrNoBinary) {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%v — under CI=true a missing stack fails the run", err)
	}
	t.Skipf("%v; skipping (build it with `make build`)", err)
}

var shared struct {
	once sync.Once
	st   *Stack
	err  error
	proc *stackproc.Process
}

// Main runs the package's tests (call it from TestMain) and then stops the shared stack if one was started.
func Main(m *testing.M) {
	code := m.Run()
	if shared.proc != nil {
		_ = shared.proc.Stop()
	}
	os.Exit(code)
}

// Shared returns the one stack of this test binary, started on first use with the test defaults and stopped
// by Main; with BATON_TEST_STATE_FILE set it attaches to that running stack instead. Tests on the shared stack
// must not stop it and must not assume they are alone on it.
func Shared(t testing.TB) *Stack {
	t.Helper()
	shared.once.Do(func() {
		if path := os.Getenv(StateFileEnv); path != "" {
			desc, err := stackproc.ReadState(path)
			if err != nil {
				shared.err = fmt.Errorf("%s=%s: %w", StateFileEnv, path, err)
				return
			}
			shared.st = &Stack{Stack: desc, StateFile: path, http: &http.Client{Timeout: 60 * time.Second}}
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		p, err := stackproc.Start(ctx, stackproc.Options{})
		if err != nil {
			shared.err = err
			return
		}
		shared.proc = p
		shared.st = fromProcess(p)
	})
	if shared.err != nil {
		missing(t, shared.err)
		t.Fatalf("shared stack: %v", shared.err)
	}
	return shared.st
}

// LogTail returns the end of the stack's log ("" for an attached stack the test did not start).
func (s *Stack) LogTail(n int) string {
	if s.proc == nil {
		return ""
	}
	return s.proc.LogTail(n)
}

// OpenAI returns the official openai-go client for the stack: base URL, the project's API key, and no SDK
// retries unless opts add them (the SDK sends OpenAI-Beta: agents=v1 on every Agents route by itself).
func OpenAI(s *Stack, opts ...option.RequestOption) openai.Client {
	base := []option.RequestOption{option.WithBaseURL(s.BaseURL), option.WithAPIKey(s.APIKey),
		option.WithMaxRetries(0)}
	return openai.NewClient(append(base, opts...)...)
}

// SFN returns an aws-sdk-go-v2 Step Functions client for the stack's endpoint.
func SFN(s *Stack) *awssfn.Client {
	return awssfn.New(awssfn.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.SFNURL),
		Credentials: aws.AnonymousCredentials{}})
}

// Deps builds Baton's components in the test process against s, as a deployed function would build them, from
// explicit values (setup.New; nothing is read from or written to the environment). adm is the Session admission
// port; nil admits every configuration.
func Deps(s *Stack, adm engine.Admission) *setup.Deps {
	awsCfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")}
	return setup.New(setup.Config{Table: s.Table, StateMachineARNs: s.StateMachineARNs,
		Endpoints: setup.Endpoints{DynamoDB: s.DynamoDBURL, SFN: s.SFNURL}}, awsCfg, adm)
}

// Response is a raw HTTP response with its body read.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// APIError is the Agents API error body {"error":{message,type,code,param}}.
type APIError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Code    *string `json:"code"`
	Param   *string `json:"param"`
}

// Error decodes the response's Agents API error body (zero when the body is not one).
func (r Response) Error() APIError {
	var body struct {
		Error APIError `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &body)
	return body.Error
}

// Do sends a raw request to the stack's API listener: path is absolute ("/v1/agents/…", "/admin/v1/…"), body is
// marshalled as JSON unless it is nil or []byte. It sends the project key as bearer and OpenAI-Beta: agents=v1;
// header entries override or add headers (an empty value removes one). It fails the test on transport errors.
func (s *Stack) Do(t testing.TB, method, path string, body any, header map[string]string) Response {
	t.Helper()
	r, err := s.DoContext(context.Background(), method, path, body, header)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return r
}

// DoContext is Do without a test: it returns transport errors (safe to call from several goroutines).
func (s *Stack) DoContext(ctx context.Context, method, path string, body any, header map[string]string) (Response, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			return Response{}, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.APIURL+path, rd)
	if err != nil {
		return Response{}, err
	}
	req.Header.Set("Authorization", "Bearer "+s.APIKey)
	req.Header.Set("OpenAI-Beta", "agents=v1")
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	client := s.http
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return Response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return Response{}, err
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

// WithKey returns a copy of s that authenticates with another project's API key.
func (s *Stack) WithKey(apiKey string) *Stack {
	c := *s
	c.APIKey = apiKey
	return &c
}

// NewProjectKey creates (or reuses) project projectID and a new API key for it through the admin API
// (POST /admin/v1/projects/{project_id}/keys with the admin key) and returns the key.
func (s *Stack) NewProjectKey(t testing.TB, projectID string) string {
	t.Helper()
	r := s.Do(t, http.MethodPost, "/admin/v1/projects/"+projectID+"/keys", map[string]any{},
		map[string]string{"Authorization": "Bearer " + s.AdminKey})
	if r.Status/100 != 2 {
		t.Fatalf("POST /admin/v1/projects/%s/keys: %d %s", projectID, r.Status, r.Body)
	}
	var body map[string]any
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("admin key response %s: %v", r.Body, err)
	}
	for _, name := range []string{"key", "api_key", "secret", "value"} {
		if k, ok := body[name].(string); ok && k != "" {
			return k
		}
	}
	t.Fatalf("admin key response carries no key: %s", r.Body)
	return ""
}

// Metrics returns the AWS request counters of the process serving this stack's API (GET /_baton/metrics), e.g.
// {"DynamoDB.PutItem": 3, "SFN.SendTaskSuccess": 1}.
func (s *Stack) Metrics(t testing.TB) map[string]int64 {
	t.Helper()
	r := s.Do(t, http.MethodGet, "/_baton/metrics", nil, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /_baton/metrics: %d %s", r.Status, r.Body)
	}
	m := map[string]int64{}
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("decode metrics %s: %v", r.Body, err)
	}
	return m
}

// SFNStats is the Step Functions endpoint's GET /_baton/stats body (local/sfn.Stats).
type SFNStats struct {
	StateTransitions  int64          `json:"state_transitions"`
	ExecutionsStarted int64          `json:"executions_started"`
	ByStatus          map[string]int `json:"executions_by_status"`
	Executions        map[string]struct {
		Status           string `json:"status"`
		StateTransitions int64  `json:"state_transitions"`
		HistoryEvents    int    `json:"history_events"`
	} `json:"executions"`
}

// Stats reads the Step Functions endpoint's counters.
func (s *Stack) Stats(t testing.TB) SFNStats {
	t.Helper()
	resp, err := http.Get(s.SFNURL + "/_baton/stats")
	if err != nil {
		t.Fatalf("GET /_baton/stats: %v", err)
	}
	defer resp.Body.Close()
	var st SFNStats
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatalf("decode /_baton/stats: %v", err)
	}
	return st
}

// ExecutionName returns the name part of an execution ARN (…:execution:<state machine>:<name>).
func ExecutionName(arn string) string {
	return arn[strings.LastIndexByte(arn, ':')+1:]
}

// LogPath returns the file holding the stack launcher's stdout and stderr (its access log, EMF metric lines and
// text log; docs/operations.md), or "" for an attached stack the test did not start.
func (s *Stack) LogPath() string {
	if s.proc == nil {
		return ""
	}
	return s.proc.LogFile
}
