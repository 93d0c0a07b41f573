package events

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/baton-run/baton/shared/httpapi"
	"github.com/baton-run/baton/shared/lambdahttp"
	"github.com/baton-run/baton/shared/orchestration/sfn"
	"github.com/baton-run/baton/shared/statemachine"
	"github.com/baton-run/baton/tests/stack"
)

func TestMain(m *testing.M) { stack.Main(m) }

// replayer fills the placeholders of a sample event and invokes a handler with it.
type replayer struct {
	t    *testing.T
	root string
	vars map[string]string
}

func (r *replayer) load(rel string) []byte {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.root, "events", rel))
	if err != nil {
		r.t.Fatalf("read sample event: %v", err)
	}
	s := string(b)
	for k, v := range r.vars {
		s = strings.ReplaceAll(s, "${"+k+"}", v)
	}
	if strings.Contains(s, "${") && !strings.Contains(s, "tool_output") {
		r.t.Fatalf("%s: unfilled placeholder in %s", rel, s)
	}
	return []byte(s)
}

// invoke runs payload through lambda.NewHandler(fn), the reflection wrapper a deployed function uses.
func invoke(t *testing.T, fn any, payload []byte) []byte {
	t.Helper()
	out, err := lambda.NewHandler(fn).Invoke(context.Background(), payload)
	if err != nil {
		t.Fatalf("invoke: %v", err)
	}
	return out
}

func (r *replayer) api(h http.Handler, rel string, wantStatus int) map[string]any {
	r.t.Helper()
	out := invoke(r.t, httpadapter.New(h).ProxyWithContext, r.load(rel))
	var resp events.APIGatewayProxyResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		r.t.Fatalf("%s: decode response: %v", rel, err)
	}
	if resp.StatusCode != wantStatus {
		r.t.Fatalf("%s: status %d, want %d; body %s", rel, resp.StatusCode, wantStatus, resp.Body)
	}
	body := map[string]any{}
	if resp.Body != "" {
		if err := json.Unmarshal([]byte(resp.Body), &body); err != nil {
			r.t.Fatalf("%s: body is not JSON: %s", rel, resp.Body)
		}
	}
	return body
}

func TestEverySampleEventReplaysThroughItsHandler(t *testing.T) {
	st := stack.Shared(t)
	ctx := context.Background()
	deps := stack.Deps(st, nil)
	h := httpapi.New(deps.Engine, httpapi.Options{AdminKey: st.AdminKey})
	root, _ := filepath.Abs("../../..")
	r := &replayer{t: t, root: root, vars: map[string]string{}}

	created := r.api(h, "api/create-agent.json", 201)
	r.vars["AgentID"] = created["id"].(string)
	r.api(h, "api/list-agents.json", 200)
	r.api(h, "api/get-agent.json", 200)
	sess := r.api(h, "api/create-session.json", 201)
	r.vars["SessionID"] = sess["id"].(string)
	r.api(h, "api/get-session.json", 200)

	// The stream function answers with a live SSE stream: headers at once, then events.
	var streamEv events.APIGatewayProxyRequest
	if err := json.Unmarshal(r.load("stream/stream-events.json"), &streamEv); err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sresp, err := lambdahttp.Streaming(h)(sctx, streamEv)
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	if sresp.StatusCode != 200 || !strings.HasPrefix(strings.Join(sresp.MultiValueHeaders["Content-Type"], ""), "text/event-stream") {
		t.Fatalf("stream: status %d headers %v", sresp.StatusCode, sresp.MultiValueHeaders)
	}
	lines := make(chan string, 256)
	go func() {
		sc := bufio.NewScanner(sresp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()

	r.api(h, "api/post-message.json", 202)
	// The local stack's runtime runs the turn until it asks for get_weather.
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := r.api(h, "api/get-session.json", 200)
		if acts, _ := s["required_actions"].([]any); len(acts) == 1 {
			a := acts[0].(map[string]any)
			r.vars["TurnID"], r.vars["CallID"] = a["turn_id"].(string), a["call_id"].(string)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no required action after 60 s: %v", s)
		}
		time.Sleep(100 * time.Millisecond)
	}
	sawRequiresAction := false
	for !sawRequiresAction {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("stream ended early")
			}
			sawRequiresAction = strings.Contains(l, `"type":"agent.session.requires_action"`)
		case <-time.After(30 * time.Second):
			t.Fatal("the stream function did not stream agent.session.requires_action")
		}
	}
	r.api(h, "api/get-turn.json", 200)
	r.api(h, "api/list-items.json", 200)
	r.api(h, "api/list-turn-items.json", 200)
	r.api(h, "api/post-tool-result.json", 202)
	for {
		turn := r.api(h, "api/get-turn.json", 200)
		if turn["status"] == "completed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("turn did not complete: %v", turn)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Task functions: on a completed turn, Park drops a stray token and Settle keeps the terminal state.
	r.vars["TaskToken"] = "stray-token"
	invoke(t, sfn.ParkHandler(deps.Engine), r.load("park/park.json"))
	for _, c := range []string{"settle/completed.json", "settle/failed.json"} {
		var out statemachine.SettleOutput
		if err := json.Unmarshal(invoke(t, sfn.SettleHandler(deps.Engine), r.load(c)), &out); err != nil {
			t.Fatal(err)
		}
		if out.Status != "completed" {
			t.Errorf("%s on a completed turn: status %q, want completed (terminal states are kept)", c, out.Status)
		}
	}
	var rec statemachine.ReconcileOutput
	if err := json.Unmarshal(invoke(t, sfn.ReconcileHandler(deps.Engine, time.Minute), r.load("reconcile/scheduled.json")), &rec); err != nil {
		t.Fatal(err)
	}
	if _, err := deps.Engine.GetTurn(ctx, st.ProjectID, r.vars["SessionID"], r.vars["TurnID"]); err != nil {
		t.Fatalf("turn after replay: %v", err)
	}
}
