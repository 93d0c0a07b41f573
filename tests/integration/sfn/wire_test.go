package sfn_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/baton-run/baton/local/sfn"
)

func TestWire(t *testing.T) {
	t.Parallel()
	s := newStack(t, sfn.Options{})
	def := `{"StartAt":"A","States":{"A":{"Type":"Pass","End":true}}}`
	t.Run("W1 any path is served and W4 an unknown target is a 400", func(t *testing.T) {
		t.Parallel()
		for _, path := range []string{"/", "/prefix/"} {
			req, _ := http.NewRequest(http.MethodPost, s.srv.URL+path, strings.NewReader(`{}`))
			req.Header.Set("X-Amz-Target", "AWSStepFunctions.ListActivities")
			req.Header.Set("Content-Type", "application/x-amz-json-1.0")
			resp, err := http.DefaultClient.Do(req)
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("%s: %v %v", path, err, resp)
			}
			resp.Body.Close()
		}
		req, _ := http.NewRequest(http.MethodPost, s.srv.URL, strings.NewReader(`{}`))
		req.Header.Set("X-Amz-Target", "AWSStepFunctions.Nope")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Type string `json:"__type"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.HasSuffix(body.Type, "#UnknownOperationException") {
			t.Fatalf("got %d %q", resp.StatusCode, body.Type)
		}
	})
	t.Run("A1 A2 A6 create is idempotent and describe returns the definition", func(t *testing.T) {
		t.Parallel()
		in := &awssfn.CreateStateMachineInput{Name: aws.String("wire"), Definition: aws.String(def), RoleArn: aws.String(roleARN)}
		a, err := s.client.CreateStateMachine(ctx(t), in)
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.client.CreateStateMachine(ctx(t), in)
		if err != nil || aws.ToString(a.StateMachineArn) != aws.ToString(b.StateMachineArn) || !a.CreationDate.Equal(*b.CreationDate) {
			t.Fatalf("second create: %v", err)
		}
		if got := aws.ToString(a.StateMachineArn); got != "arn:aws:states:us-east-1:123456789012:stateMachine:wire" {
			t.Errorf("ARN %s", got)
		}
		if d := time.Since(*a.CreationDate); d < 0 || d > 5*time.Second {
			t.Errorf("W3 creationDate %v", a.CreationDate)
		}
		_, err = s.client.CreateStateMachine(ctx(t), &awssfn.CreateStateMachineInput{Name: aws.String("wire"), Definition: aws.String(pass(``)), RoleArn: aws.String(roleARN)})
		mustAs[*types.StateMachineAlreadyExists](t, err)
		desc, err := s.client.DescribeStateMachine(ctx(t), &awssfn.DescribeStateMachineInput{StateMachineArn: a.StateMachineArn})
		if err != nil || aws.ToString(desc.Definition) != def || desc.Status != types.StateMachineStatusActive || desc.Type != types.StateMachineTypeStandard {
			t.Fatalf("describe: %v %+v", err, desc)
		}
		_, err = s.client.DescribeStateMachine(ctx(t), &awssfn.DescribeStateMachineInput{StateMachineArn: aws.String("not-an-arn")})
		mustAs[*types.InvalidArn](t, err)
		_, err = s.client.DescribeStateMachine(ctx(t), &awssfn.DescribeStateMachineInput{StateMachineArn: aws.String("arn:aws:states:us-east-1:123456789012:stateMachine:none")})
		mustAs[*types.StateMachineDoesNotExist](t, err)
	})
	t.Run("stats route counts transitions", func(t *testing.T) {
		t.Parallel()
		out := s.run(t, `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"B"},"B":{"Type":"Pass","Next":"C"},"C":{"Type":"Succeed"}}}`, `{}`)
		resp, err := http.Get(s.srv.URL + sfn.StatsPath)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var stats sfn.Stats
		if err := json.NewDecoder(resp.Body).Decode(&stats); err != nil {
			t.Fatal(err)
		}
		if got := stats.Executions[aws.ToString(out.ExecutionArn)].StateTransitions; got != 3 {
			t.Errorf("transitions %d, want 3", got)
		}
	})
}
