package rie

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/shared/admission"
	"github.com/baton-run/baton/shared/agentcore/translate"
	"github.com/baton-run/baton/shared/httpapi"
	"github.com/baton-run/baton/shared/lambdahttp"
	"github.com/baton-run/baton/shared/orchestration/sfn"
	"github.com/baton-run/baton/shared/setup"
	"github.com/baton-run/baton/tests/stack"
)

func TestMain(m *testing.M) { stack.Main(m) }

const root = "../../.."

// functionDirs maps each function of template.yaml to its main package (Metadata.BatonCodeDir).
var functionDirs = map[string]string{
	"ApiFunction":       "api",
	"StreamFunction":    "stream",
	"ParkFunction":      "park",
	"SettleFunction":    "settle",
	"ReconcileFunction": "reconcile",
}

// goBuild runs `go <args>` in dir with extra environment, failing the test with its output.
func goBuild(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// buildAll builds the emulator (module pinned in tools/rie) and every function's bootstrap into a temporary folder:
// linux, this machine's architecture, CGO off, -tags lambda.norpc -trimpath as the Makefile's build-<LogicalId>.
func buildAll(t *testing.T) (rie string, bootstraps map[string]string) {
	t.Helper()
	dir := t.TempDir()
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	rie = filepath.Join(dir, "aws-lambda-rie")
	goBuild(t, filepath.Join(abs, "tools", "rie"), []string{"CGO_ENABLED=0"}, "build", "-o", rie,
		"github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie")
	bootstraps = map[string]string{}
	for id, pkg := range functionDirs {
		out := filepath.Join(dir, id, "bootstrap")
		goBuild(t, abs, []string{"GOOS=linux", "GOARCH=" + runtime.GOARCH, "CGO_ENABLED=0"},
			"build", "-tags", "lambda.norpc", "-trimpath", "-o", out, "./functions/"+pkg)
		bootstraps[id] = out
	}
	return rie, bootstraps
}

// samEnv reads local/sam-env.json.
func samEnv(t *testing.T) map[string]map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "local", "sam-env.json"))
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]map[string]string
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	return env
}

// freeAddr is a free loopback address.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// emulator is one function's bootstrap running under aws-lambda-rie.
type emulator struct {
	id, url string
	log     *syncBuffer
}

// startEmulator runs `aws-lambda-rie <bootstrap>` with env (and nothing else of this process's environment but
// PATH), on its own invoke and Runtime API addresses, and waits until it accepts connections.
func startEmulator(t *testing.T, rie, bootstrap, id string, env map[string]string) *emulator {
	t.Helper()
	addr, apiAddr := freeAddr(t), freeAddr(t)
	cmd := exec.Command(rie, "--runtime-interface-emulator-address", addr, "--runtime-api-address", apiAddr, bootstrap)
	cmd.Dir = filepath.Dir(bootstrap)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	log := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s emulator log:\n%s", id, log.String())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the emulator does not listen on %s: %v\n%s", id, addr, err, log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return &emulator{id: id, url: "http://" + addr + "/2015-03-31/functions/function/invocations", log: log}
}

// invoke POSTs payload to the emulator's invoke API and returns the function's answer.
func (e *emulator) invoke(t *testing.T, payload []byte) []byte {
	t.Helper()
	out, err := e.post(payload)
	if err != nil {
		t.Fatalf("%s: %v", e.id, err)
	}
	return out
}

func (e *emulator) post(payload []byte) ([]byte, error) {
	resp, err := http.Post(e.url, "application/json", bytes.NewReader(payload))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("invoke answered %d: %s", resp.StatusCode, out)
	}
	return out, nil
}

// syncBuffer is a bytes.Buffer safe for the emulator's two output streams.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// eventsQueryWatch is a transparent proxy in front of DynamoDB Local that reports the body of every request that
// reads a Session's event log (the store's EventsAfter query, whose range ends at "EVENT#~"): that is how the test
// knows a stream function has fixed where its live stream starts, without looking inside the emulator.
type eventsQueryWatch struct {
	url    string
	bodies chan string
}

func watchEventsQueries(t *testing.T, target string) *eventsQueryWatch {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	w := &eventsQueryWatch{bodies: make(chan string, 1024)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadGateway)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		if bytes.Contains(body, []byte("EVENT#~")) {
			select {
			case w.bodies <- string(body):
			default:
			}
		}
		rp.ServeHTTP(rw, r)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	w.url = "http://" + ln.Addr().String()
	return w
}

// waitStreamStarted waits until the stream function has read the event log of sessionID.
func (w *eventsQueryWatch) waitStreamStarted(t *testing.T, sessionID string) {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case b := <-w.bodies:
			if strings.Contains(b, "SESSION#"+sessionID) {
				return
			}
		case <-timeout:
			t.Fatalf("the stream function never read the events of %s", sessionID)
		}
	}
}

// lane runs the replay sequence through one way of invoking the functions.
type lane struct {
	name string
	// invoke sends payload to function id and returns its answer (a buffered invocation).
	invoke func(t *testing.T, id string, payload []byte) []byte
	// startStream starts the stream function on payload for sessionID and returns once its live stream has a fixed
	// start; the channel yields the function's whole answer (the streaming prelude, 8 zero bytes, the body) when the
	// stream ends.
	startStream func(t *testing.T, sessionID string, payload []byte) <-chan []byte
}

// step is one transcript entry: the event file and what it answered.
type step struct {
	Event  string
	Status int
	Shape  string
}

// run replays every events/ file through l against the stack and returns the transcript. The order is the one of
// tests/integration/events; the stream function's stream ends when the test deletes the Session at the end.
func run(t *testing.T, l lane, st *stack.Stack, deleteSession func(id string)) []step {
	t.Helper()
	vars := map[string]string{}
	var transcript []step
	load := func(rel string) []byte {
		b, err := os.ReadFile(filepath.Join(root, "events", rel))
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		for k, v := range vars {
			s = strings.ReplaceAll(s, "${"+k+"}", v)
		}
		return []byte(s)
	}
	api := func(rel string, record bool) map[string]any {
		t.Helper()
		var resp events.APIGatewayProxyResponse
		out := l.invoke(t, "ApiFunction", load(rel))
		if err := json.Unmarshal(out, &resp); err != nil || resp.StatusCode == 0 {
			t.Fatalf("%s %s: not an API Gateway proxy response: %s", l.name, rel, out)
		}
		body := map[string]any{}
		if resp.Body != "" {
			if err := json.Unmarshal([]byte(resp.Body), &body); err != nil {
				t.Fatalf("%s %s: body is not JSON: %s", l.name, rel, resp.Body)
			}
		}
		if record {
			transcript = append(transcript, step{Event: rel, Status: resp.StatusCode, Shape: shape(body)})
		}
		return body
	}
	task := func(id, rel string) {
		t.Helper()
		var v any
		out := l.invoke(t, id, load(rel))
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("%s %s: answer is not JSON: %s", l.name, rel, out)
		}
		s := shape(v)
		if m, ok := v.(map[string]any); ok {
			if status, ok := m["status"].(string); ok {
				s += " status=" + status // Settle's terminal state is part of the contract, not an id
			}
		}
		transcript = append(transcript, step{Event: rel, Status: 0, Shape: s})
	}

	vars["AgentID"] = api("api/create-agent.json", true)["id"].(string)
	api("api/list-agents.json", true)
	api("api/get-agent.json", true)
	vars["SessionID"] = api("api/create-session.json", true)["id"].(string)
	api("api/get-session.json", true)
	streamDone := l.startStream(t, vars["SessionID"], load("stream/stream-events.json"))

	api("api/post-message.json", true)
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := api("api/get-session.json", false)
		if acts, _ := s["required_actions"].([]any); len(acts) == 1 {
			a := acts[0].(map[string]any)
			vars["TurnID"], vars["CallID"] = a["turn_id"].(string), a["call_id"].(string)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no required action after 60 s: %v", l.name, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
	api("api/get-turn.json", true)
	api("api/list-items.json", true)
	api("api/list-turn-items.json", true)
	api("api/post-tool-result.json", true)
	for {
		turn := api("api/get-turn.json", false)
		if turn["status"] == "completed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: turn did not complete: %v", l.name, turn)
		}
		time.Sleep(100 * time.Millisecond)
	}
	api("api/get-turn.json", true)

	vars["TaskToken"] = "stray-token"
	task("ParkFunction", "park/park.json")
	task("SettleFunction", "settle/completed.json")
	task("SettleFunction", "settle/failed.json")
	task("ReconcileFunction", "reconcile/scheduled.json")

	deleteSession(vars["SessionID"])
	var out []byte
	select {
	case out = <-streamDone:
	case <-time.After(60 * time.Second):
		t.Fatalf("%s: the stream did not end after the Session was deleted", l.name)
	}
	status, contentType, types := decodeStream(t, out)
	transcript = append(transcript, step{Event: "stream/stream-events.json", Status: status,
		Shape: contentType + " " + strings.Join(types, ",")})
	return transcript
}

// decodeStream splits a streamed API Gateway answer (JSON prelude, 8 zero bytes, body) and returns the status, the
// content type and the SSE event types of the body in order.
func decodeStream(t *testing.T, out []byte) (int, string, []string) {
	t.Helper()
	i := bytes.Index(out, make([]byte, 8))
	if i < 0 {
		t.Fatalf("stream answer has no prelude separator: %q", out)
	}
	var prelude struct {
		StatusCode        int                 `json:"statusCode"`
		MultiValueHeaders map[string][]string `json:"multiValueHeaders"`
	}
	if err := json.Unmarshal(out[:i], &prelude); err != nil {
		t.Fatalf("stream prelude %q: %v", out[:i], err)
	}
	var types []string
	for _, line := range strings.Split(string(out[i+8:]), "\n") {
		if typ, ok := strings.CutPrefix(line, "event: "); ok {
			types = append(types, typ)
		}
	}
	return prelude.StatusCode, strings.Join(prelude.MultiValueHeaders["Content-Type"], ","), types
}

// shape renders the structure of a JSON value: object keys (sorted) with the shape of their values, the distinct
// shapes of an array's elements, and the kind of each scalar. Ids, times and counts differ between runs; the shape
// does not.
func shape(v any) string {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ":" + shape(x[k])
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []any:
		seen := map[string]bool{}
		var parts []string
		for _, e := range x {
			if s := shape(e); !seen[s] {
				seen[s] = true
				parts = append(parts, s)
			}
		}
		sort.Strings(parts)
		return "[" + strings.Join(parts, "|") + "]"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// TestEveryFunctionAnswersUnderTheRuntimeInterfaceEmulatorAsInProcess: every events/ file gives the same status and
// body shape through the function's bootstrap under aws-lambda-rie (with local/sam-env.json's variables, SAM's
// default credentials, and the endpoints of a running local stack) as through the same handler in-process.
func TestEveryFunctionAnswersUnderTheRuntimeInterfaceEmulatorAsInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the emulator and five functions")
	}
	st := stack.Shared(t)
	rie, bootstraps := buildAll(t)
	deps := stack.Deps(st, translate.Admission{Next: admission.Execution{}})
	deleteSession := func(id string) {
		if err := deps.Engine.DeleteSession(context.Background(), st.ProjectID, id); err != nil {
			t.Fatalf("delete session %s: %v", id, err)
		}
	}

	// In-process: the handlers each main.go starts, through lambda.NewHandler as lambda.Start wraps them.
	h := httpapi.New(deps.Engine, httpapi.Options{AdminKey: samEnv(t)["ApiFunction"]["BATON_ADMIN_KEY"], RuntimeSessions: deps.Store})
	handlers := map[string]any{
		"ApiFunction":       httpadapter.New(h).ProxyWithContext,
		"ParkFunction":      sfn.ParkHandler(deps.Engine),
		"SettleFunction":    sfn.SettleHandler(deps.Engine),
		"ReconcileFunction": sfn.ReconcileHandler(deps.Engine, time.Minute),
	}
	inProcess := lane{name: "in-process",
		invoke: func(t *testing.T, id string, payload []byte) []byte {
			out, err := lambda.NewHandler(handlers[id]).Invoke(context.Background(), payload)
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			return out
		},
		startStream: func(t *testing.T, _ string, payload []byte) <-chan []byte {
			var ev events.APIGatewayProxyRequest
			if err := json.Unmarshal(payload, &ev); err != nil {
				t.Fatal(err)
			}
			// Streaming returns once the handler has written its headers, after it fixed the stream's start.
			resp, err := lambdahttp.Streaming(h)(context.Background(), ev)
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			done := make(chan []byte, 1)
			go func() {
				b, _ := io.ReadAll(resp) // the bytes lambda.Start posts: prelude, separator, body
				done <- b
			}()
			return done
		},
	}
	want := run(t, inProcess, st, deleteSession)

	// Under the emulator: SAM's env-vars file, with the stack's endpoints (the stream function's DynamoDB through
	// the watching proxy), the Lambda runtime's own variables, and SAM's default credentials (DynamoDB Local keeps
	// one database whatever the credentials).
	watch := watchEventsQueries(t, st.DynamoDBURL)
	emus := map[string]*emulator{}
	for id, vars := range samEnv(t) {
		env := map[string]string{}
		for k, v := range vars {
			env[k] = v
		}
		env["BATON_TABLE"] = st.Table
		env["AWS_ENDPOINT_URL_DYNAMODB"] = st.DynamoDBURL
		env["AWS_ENDPOINT_URL_SFN"] = st.SFNURL
		if _, ok := env["BATON_STATE_MACHINE_ARNS"]; ok {
			env["BATON_STATE_MACHINE_ARNS"] = setup.FormatStateMachineARNs(st.StateMachineARNs)
		}
		if id == "StreamFunction" {
			env["AWS_ENDPOINT_URL_DYNAMODB"] = watch.url
		}
		env["AWS_REGION"], env["AWS_DEFAULT_REGION"] = "us-east-1", "us-east-1"
		env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"] = "defaultkey", "defaultsecret"
		env["AWS_LAMBDA_FUNCTION_NAME"] = id
		env["AWS_LAMBDA_FUNCTION_TIMEOUT"] = "120"
		bs, ok := bootstraps[id]
		if !ok {
			t.Fatalf("local/sam-env.json names %s, which has no main package here", id)
		}
		emus[id] = startEmulator(t, rie, bs, id, env)
	}
	underRIE := lane{name: "aws-lambda-rie",
		invoke: func(t *testing.T, id string, payload []byte) []byte { return emus[id].invoke(t, payload) },
		startStream: func(t *testing.T, sessionID string, payload []byte) <-chan []byte {
			done := make(chan []byte, 1)
			go func() {
				out, err := emus["StreamFunction"].post(payload)
				if err != nil {
					out = []byte(err.Error())
				}
				done <- out
			}()
			watch.waitStreamStarted(t, sessionID)
			return done
		},
	}
	got := run(t, underRIE, st, deleteSession)
	for _, s := range got {
		t.Logf("rie %s: %d %s", s.Event, s.Status, s.Shape)
	}
	if len(got) != 16 {
		t.Errorf("transcript has %d steps, want 16 (every events/ file, get-turn twice)", len(got))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers under aws-lambda-rie differ from in-process (-in-process +rie):\n%s", diff)
	}
	for _, s := range got {
		if s.Event == "stream/stream-events.json" && !strings.Contains(s.Shape, "agent.session.requires_action") {
			t.Errorf("the stream carried no agent.session.requires_action: %s", s.Shape)
		}
	}
}
