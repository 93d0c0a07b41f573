package awsci_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/aws/aws-sdk-go-v2/credentials"
	bac "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore"
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/types"
	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/codeinterpreter"
	"github.com/baton-run/baton/shared/codeinterpreter/awsci"
)

// frame is one event-stream message the fake service sends: an event of type `result` or an exception.
type frame struct {
	exception string // "" = a result event
	payload   any
}

// service speaks the AgentCore Code Interpreter data plane as the SDK expects it (restJson1 for start and stop,
// AWS event-stream frames for invoke). Each executeCode answers with the frames replies[code] (code not listed:
// one result with the code echoed as stdout). It records every request as "METHOD path session" and each
// request's SigV4 credential scope.
type service struct {
	t       *testing.T
	replies map[string][]frame

	mu       sync.Mutex
	requests []string
	scopes   map[string]bool
	bodies   []map[string]any
	live     map[string]bool
	started  int
}

func newService(t *testing.T, replies map[string][]frame) (*service, *bac.Client) {
	s := &service{t: t, replies: replies, scopes: map[string]bool{}, live: map[string]bool{}}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	client := bac.New(bac.Options{Region: "us-west-2", BaseEndpoint: aws.String(ts.URL),
		Credentials: credentials.NewStaticCredentialsProvider("AKIDCI", "ci-secret", "")})
	return s, client
}

func (s *service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	auth := r.Header.Get("Authorization")
	scope := ""
	if i := strings.Index(auth, "Credential="); i >= 0 {
		scope = strings.SplitN(strings.SplitN(auth[i+len("Credential="):], ",", 2)[0], "/", 3)[2]
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scopes[scope] = true
	session := r.Header.Get("X-Amzn-Code-Interpreter-Session-Id") + r.URL.Query().Get("sessionId")
	s.requests = append(s.requests, r.Method+" "+r.URL.Path+" "+session)
	w.Header().Set("Content-Type", "application/json")
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/code-interpreters/"), "/")
	id := parts[0]
	switch {
	case r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/sessions/start"):
		s.started++
		sid := fmt.Sprintf("01SESSION%d", s.started)
		s.live[sid] = true
		_ = json.NewEncoder(w).Encode(map[string]any{"codeInterpreterIdentifier": id, "sessionId": sid, "createdAt": "2026-12-01T12:00:00Z"})
	case r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/sessions/stop"):
		delete(s.live, session)
		_ = json.NewEncoder(w).Encode(map[string]any{"codeInterpreterIdentifier": id, "sessionId": session, "lastUpdatedAt": "2026-12-01T12:05:00Z"})
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/tools/invoke"):
		if !s.live[session] {
			w.Header().Set("X-Amzn-ErrorType", "ResourceNotFoundException")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"message":"Session not found"}`)
			return
		}
		var in map[string]any
		if err := json.Unmarshal(body, &in); err != nil {
			s.t.Errorf("invoke body %s: %v", body, err)
		}
		s.bodies = append(s.bodies, in)
		args, _ := in["arguments"].(map[string]any)
		code, _ := args["code"].(string)
		frames, ok := s.replies[code]
		if !ok {
			frames = []frame{{payload: map[string]any{"content": []any{}, "structuredContent": map[string]any{"stdout": code, "exitCode": 0}}}}
		}
		w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
		w.Header().Set("X-Amzn-Code-Interpreter-Session-Id", session)
		w.WriteHeader(http.StatusOK)
		enc := eventstream.NewEncoder()
		for _, f := range frames {
			var m eventstream.Message
			if f.exception == "" {
				m.Headers.Set(":message-type", eventstream.StringValue("event"))
				m.Headers.Set(":event-type", eventstream.StringValue("result"))
			} else {
				m.Headers.Set(":message-type", eventstream.StringValue("exception"))
				m.Headers.Set(":exception-type", eventstream.StringValue(f.exception))
			}
			m.Headers.Set(":content-type", eventstream.StringValue("application/json"))
			m.Payload, _ = json.Marshal(f.payload)
			if err := enc.Encode(w, m); err != nil {
				s.t.Errorf("encode frame: %v", err)
			}
		}
	default:
		w.Header().Set("X-Amzn-ErrorType", "ValidationException")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"message":"unexpected request"}`)
	}
}

func (s *service) expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.live = map[string]bool{}
}

func (s *service) log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

const (
	customARN = "arn:aws:bedrock-agentcore:us-west-2:123456789012:code-interpreter-custom/my_ci-abcdefghij"
	failing   = "import sys\nprint('partial')\nsys.exit('boom')"
	invalid   = "print(1)  # the service refuses this one"
)

var replies = map[string][]frame{
	"print('hello')": {{payload: map[string]any{
		"content":           []any{map[string]any{"type": "text", "text": "hello\n"}},
		"structuredContent": map[string]any{"stdout": "hello\n", "stderr": "", "exitCode": 0, "executionTime": 12.5},
		"isError":           false}}},
	failing: {{payload: map[string]any{
		"content":           []any{map[string]any{"type": "text", "text": "partial\nboom"}},
		"structuredContent": map[string]any{"stdout": "partial\n", "stderr": "boom\n", "exitCode": 1},
		"isError":           true}}},
	invalid: {
		{payload: map[string]any{"content": []any{map[string]any{"type": "text", "text": "started"}}}},
		{exception: "validationException", payload: map[string]any{"message": "code is not valid here", "reason": "CannotParse",
			"fieldList": []any{map[string]any{"name": "code", "message": "bad"}}}},
	},
	"console.log(1); throw new Error('x')": {{payload: map[string]any{
		"content": []any{map[string]any{"type": "text", "text": "1\n"}, map[string]any{"type": "text", "text": "Error: x"}},
		"isError": true}}},
	"console.log(2)": {{payload: map[string]any{
		"content": []any{map[string]any{"type": "text", "text": "2\n"}}}}},
	"print('many')": {
		{payload: map[string]any{"content": []any{}, "structuredContent": map[string]any{"stdout": "one\n"}}},
		{payload: map[string]any{"content": []any{}, "structuredContent": map[string]any{"stdout": "two\n", "exitCode": 0}}},
	},
}

func TestOneSessionRunsEachProgramAndStopsOnClose(t *testing.T) {
	t.Parallel()
	svc, client := newService(t, replies)
	p := awsci.New(client, customARN, awsci.Options{SessionName: "sess_1", SessionTimeoutSeconds: 600})
	ctx := t.Context()

	got, err := p.Execute(ctx, "python", "print('hello')")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(codeinterpreter.Execution{Stdout: "hello\n"}, got); d != "" {
		t.Errorf("python stdout (-want +got):\n%s", d)
	}
	got, err = p.Execute(ctx, "python", failing)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(codeinterpreter.Execution{Stdout: "partial\n", Stderr: "boom\n", ExitCode: 1}, got); d != "" {
		t.Errorf("a failing program (-want +got):\n%s", d)
	}
	got, err = p.Execute(ctx, "python", "print('many')")
	if err != nil || got.Stdout != "one\ntwo\n" {
		t.Errorf("two result events: %+v, %v", got, err)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
	if _, err := p.Execute(ctx, "python", "print('hello')"); !errors.Is(err, awsci.ErrClosed) {
		t.Errorf("Execute after Close: %v; want ErrClosed", err)
	}

	want := []string{
		"PUT /code-interpreters/my_ci-abcdefghij/sessions/start ",
		"POST /code-interpreters/my_ci-abcdefghij/tools/invoke 01SESSION1",
		"POST /code-interpreters/my_ci-abcdefghij/tools/invoke 01SESSION1",
		"POST /code-interpreters/my_ci-abcdefghij/tools/invoke 01SESSION1",
		"PUT /code-interpreters/my_ci-abcdefghij/sessions/stop 01SESSION1",
	}
	if d := cmp.Diff(want, svc.log()); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]bool{"us-west-2/bedrock-agentcore/aws4_request": true}, svc.scopes); d != "" {
		t.Errorf("SigV4 scopes (-want +got):\n%s", d)
	}
	first := svc.bodies[0]
	if d := cmp.Diff(map[string]any{"name": "executeCode", "arguments": map[string]any{"code": "print('hello')", "language": "python"}}, first); d != "" {
		t.Errorf("executeCode body (-want +got):\n%s", d)
	}
}

func TestTheBuiltInInterpreterServesAnUndeclaredARN(t *testing.T) {
	t.Parallel()
	svc, client := newService(t, replies)
	p := awsci.New(client, "", awsci.Options{})
	if _, err := p.Execute(t.Context(), "javascript", "console.log(2)"); err != nil {
		t.Fatal(err)
	}
	if got := svc.log()[0]; got != "PUT /code-interpreters/aws.codeinterpreter.v1/sessions/start " {
		t.Errorf("start request %q", got)
	}
	for arn, want := range map[string]string{
		"": awsci.DefaultIdentifier,
		"arn:aws:bedrock-agentcore:us-west-2:aws:code-interpreter/aws.codeinterpreter.v1": "aws.codeinterpreter.v1",
		customARN: "my_ci-abcdefghij",
	} {
		if got := awsci.Identifier(arn); got != want {
			t.Errorf("Identifier(%q) = %q, want %q", arn, got, want)
		}
	}
}

func TestResultsWithoutStructuredContentUseTheText(t *testing.T) {
	t.Parallel()
	_, client := newService(t, replies)
	p := awsci.New(client, "", awsci.Options{})
	ctx := t.Context()
	got, err := p.Execute(ctx, "javascript", "console.log(1); throw new Error('x')")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(codeinterpreter.Execution{Stderr: "1\nError: x", ExitCode: 1}, got); d != "" {
		t.Errorf("an error result with text only (-want +got):\n%s", d)
	}
	got, err = p.Execute(ctx, "javascript", "console.log(2)")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(codeinterpreter.Execution{Stdout: "2\n"}, got); d != "" {
		t.Errorf("a text-only result (-want +got):\n%s", d)
	}
}

func TestAnInStreamValidationExceptionIsAnError(t *testing.T) {
	t.Parallel()
	_, client := newService(t, replies)
	p := awsci.New(client, "", awsci.Options{})
	_, err := p.Execute(t.Context(), "python", invalid)
	var ve *types.ValidationException
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "code is not valid here") {
		t.Fatalf("error %v (%T); want a *types.ValidationException", err, err)
	}
}

func TestAnExpiredSessionIsStartedAgainOnce(t *testing.T) {
	t.Parallel()
	svc, client := newService(t, replies)
	p := awsci.New(client, "", awsci.Options{})
	ctx := t.Context()
	if _, err := p.Execute(ctx, "python", "print('hello')"); err != nil {
		t.Fatal(err)
	}
	svc.expire()
	got, err := p.Execute(ctx, "python", "print('hello')")
	if err != nil || got.Stdout != "hello\n" {
		t.Fatalf("after expiry: %+v, %v", got, err)
	}
	want := []string{
		"PUT /code-interpreters/aws.codeinterpreter.v1/sessions/start ",
		"POST /code-interpreters/aws.codeinterpreter.v1/tools/invoke 01SESSION1",
		"POST /code-interpreters/aws.codeinterpreter.v1/tools/invoke 01SESSION1",
		"PUT /code-interpreters/aws.codeinterpreter.v1/sessions/start ",
		"POST /code-interpreters/aws.codeinterpreter.v1/tools/invoke 01SESSION2",
	}
	if d := cmp.Diff(want, svc.log()); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
	// A session lost right after it started is not started a third time: the error is returned.
	svc.expire()
	q := awsci.New(&expiringClient{Client: client, svc: svc}, "", awsci.Options{})
	var nf *types.ResourceNotFoundException
	if _, err := q.Execute(ctx, "python", "print('hello')"); !errors.As(err, &nf) {
		t.Errorf("a fresh session not found: %v; want ResourceNotFoundException", err)
	}
}

// expiringClient expires every session right after it starts.
type expiringClient struct {
	*bac.Client
	svc *service
}

func (c *expiringClient) StartCodeInterpreterSession(ctx context.Context, in *bac.StartCodeInterpreterSessionInput, opts ...func(*bac.Options)) (*bac.StartCodeInterpreterSessionOutput, error) {
	out, err := c.Client.StartCodeInterpreterSession(ctx, in, opts...)
	c.svc.expire()
	return out, err
}

func TestWhatIsRefusedBeforeAnythingRuns(t *testing.T) {
	t.Parallel()
	svc, client := newService(t, replies)
	p := awsci.New(client, "", awsci.Options{})
	if _, err := p.Execute(t.Context(), "ruby", "puts 1"); !errors.Is(err, awsci.ErrUnsupportedLanguage) {
		t.Errorf("ruby: %v", err)
	}
	if err := p.Close(t.Context()); err != nil {
		t.Errorf("Close without a session: %v", err)
	}
	if got := svc.log(); len(got) != 0 {
		t.Errorf("requests sent: %v", got)
	}
}

func TestOutputIsCutAtTheLimit(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 100)
	_, client := newService(t, replies)
	p := awsci.New(client, "", awsci.Options{MaxOutputBytes: 10})
	got, err := p.Execute(t.Context(), "python", long)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Repeat("x", 10) + "\n[output truncated: 90 more bytes]"; got.Stdout != want {
		t.Errorf("stdout %q, want %q", got.Stdout, want)
	}
}
