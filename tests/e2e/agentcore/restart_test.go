package agentcore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	dp "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore"
	dptypes "github.com/aws/aws-sdk-go-v2/service/bedrockagentcore/types"

	"github.com/baton-run/baton/tests/stack"
)

// TestAPendingPauseSurvivesARestartOnADataFolder: on a stack of its own with a data folder, an invoke pauses on an
// inline call; the whole stack is crashed (SIGKILL) once the pause is parked and started again on the same folder;
// the follow-up toolResult on the same runtimeSessionId, with the same access key and harness, resumes the turn.
func TestAPendingPauseSurvivesARestartOnADataFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := stack.Start(t, stack.Options{DataDir: dir})
	project := fmt.Sprintf("acd-restart-%x", time.Now().UnixNano())
	id, secret := st.NewAccessKey(t, project)
	f := newFixtureIn(t, st, project, id, secret, "restart", script(), weatherTool())
	sid := newSessionID(t)
	frames, err := f.invoke(t, sid, &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{userText("weather in Paris")}})
	if err != nil {
		t.Fatalf("invoke: %v", err)
	}
	uses := toolUses(frames)
	if len(uses) != 1 || lastStop(frames) != "tool_use" {
		t.Fatalf("pause %s", shape(frames))
	}
	session := onlySession(t, f.agentsKey(t))
	waitParked(t, st, session)
	st.Kill(t)

	st2 := stack.Start(t, stack.Options{DataDir: dir})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	after := &fixture{st: st2, project: project, keyID: id, secret: secret, ctx: ctx, arn: f.arn, control: stack.AgentCoreControl(st2, id, secret)}
	after.data = after.dataClient()
	api := after.agentsKey(t)
	if got := sessionStatus(t, api, session); got != "requires_action" {
		t.Fatalf("session status after the restart %q; want requires_action", got)
	}
	frames, err = after.invoke(t, sid, &dp.InvokeHarnessInput{Messages: []dptypes.HarnessMessage{toolResults(uses[0].ID, "foggy")}})
	if err != nil {
		t.Fatalf("follow-up after the restart: %v", err)
	}
	if got := texts(frames); got != "Weather: foggy;" || lastStop(frames) != "end_turn" {
		t.Fatalf("reply after the restart %q (%s)", got, shape(frames))
	}
	if got := onlySession(t, api); got != session {
		t.Fatalf("the follow-up after the restart made session %s; want the paused %s", got, session)
	}
	waitFor(t, func() bool { return sessionStatus(t, api, session) == "idle" })
}
