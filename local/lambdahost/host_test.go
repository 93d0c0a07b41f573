package lambdahost_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/aws"
	awslambda "github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/local/lambdahost"
)

type greetIn struct {
	Name string `json:"name"`
}

type greetOut struct {
	Greeting  string `json:"greeting"`
	RequestID string `json:"request_id"`
	ARN       string `json:"arn"`
}

type myError struct{ msg string }

func (e *myError) Error() string { return e.msg }

// newClient starts a Host with the test functions behind httptest and returns a real SDK client for it.
func newClient(t *testing.T, events *atomic.Int32) (*awslambda.Client, *lambdahost.Host) {
	t.Helper()
	h := lambdahost.New()
	h.NewRequestID = func() string { return "req-1" }
	h.Register(lambdahost.Function{Name: "Greeter", Handler: lambda.NewHandler(func(ctx context.Context, in greetIn) (greetOut, error) {
		lc, _ := lambdacontext.FromContext(ctx)
		return greetOut{Greeting: "hello " + in.Name, RequestID: lc.AwsRequestID, ARN: lc.InvokedFunctionArn}, nil
	})})
	h.Register(lambdahost.Function{Name: "Plain", Handler: lambda.NewHandler(func(context.Context) error { return errors.New("boom") })})
	h.Register(lambdahost.Function{Name: "Typed", Handler: lambda.NewHandler(func(context.Context) error { return &myError{"typed boom"} })})
	h.Register(lambdahost.Function{Name: "Named", Handler: lambda.NewHandler(func(context.Context) error {
		return messages.InvokeResponse_Error{Type: "Baton.Named", Message: "named boom"}
	})})
	h.Register(lambdahost.Function{Name: "Panicky", Handler: lambda.NewHandler(func(context.Context) error { panic("oops") })})
	h.Register(lambdahost.Function{Name: "Slow", Timeout: 50 * time.Millisecond, Handler: lambda.NewHandler(func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	})})
	h.Register(lambdahost.Function{Name: "Counter", Handler: lambda.NewHandler(func(context.Context) error {
		events.Add(1)
		return nil
	})})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	client := awslambda.New(awslambda.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "local", SecretAccessKey: "local"}, nil
		}),
		RetryMaxAttempts: 1,
	})
	return client, h
}

func TestInvokeRequestResponse(t *testing.T) {
	t.Parallel()
	client, _ := newClient(t, new(atomic.Int32))
	type outcome struct {
		Status        int32
		FunctionError string
		Version       string
		Payload       string
	}
	okPayload := `{"greeting":"hello ada","request_id":"req-1","arn":"arn:aws:lambda:us-east-1:000000000000:function:Greeter"}`
	tests := []struct {
		name     string
		function string
		payload  string
		want     outcome
	}{
		{"by name", "Greeter", `{"name":"ada"}`, outcome{200, "", "$LATEST", okPayload}},
		{"by full ARN", "arn:aws:lambda:us-east-1:000000000000:function:Greeter", `{"name":"ada"}`, outcome{200, "", "$LATEST", okPayload}},
		{"by partial ARN", "000000000000:function:Greeter", `{"name":"ada"}`, outcome{200, "", "$LATEST", okPayload}},
		{"by name with $LATEST", "Greeter:$LATEST", `{"name":"ada"}`, outcome{200, "", "$LATEST", okPayload}},
		{"an error reports its type name", "Plain", `{}`, outcome{200, "Unhandled", "$LATEST", `{"errorMessage":"boom","errorType":"errorString"}`}},
		{"a pointer error reports the pointed-to type", "Typed", `{}`, outcome{200, "Unhandled", "$LATEST", `{"errorMessage":"typed boom","errorType":"myError"}`}},
		{"an InvokeResponse_Error is reported as is", "Named", `{}`, outcome{200, "Unhandled", "$LATEST", `{"errorMessage":"named boom","errorType":"Baton.Named"}`}},
		{"a panic is an Unhandled error", "Panicky", `{}`, outcome{200, "Unhandled", "$LATEST", `{"errorMessage":"oops","errorType":"string"}`}},
		{"a timeout is Sandbox.Timedout", "Slow", `{}`, outcome{200, "Unhandled", "$LATEST", `{"errorMessage":"req-1 Task timed out after 0.05 seconds","errorType":"Sandbox.Timedout"}`}},
		{"malformed JSON fails in the handler wrapper", "Greeter", `{"name":`, outcome{200, "Unhandled", "$LATEST", ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := client.Invoke(t.Context(), &awslambda.InvokeInput{FunctionName: aws.String(tc.function), Payload: []byte(tc.payload)})
			if err != nil {
				t.Fatalf("Invoke: %v", err)
			}
			got := outcome{out.StatusCode, aws.ToString(out.FunctionError), aws.ToString(out.ExecutedVersion), string(out.Payload)}
			if tc.want.Payload == "" { // only the shape matters
				var body map[string]any
				if err := json.Unmarshal(out.Payload, &body); err != nil || body["errorType"] == "" || body["errorMessage"] == "" {
					t.Errorf("payload = %s, want an {errorMessage, errorType} body", out.Payload)
				}
				got.Payload = ""
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestInvokeUnknownFunctionIsResourceNotFound(t *testing.T) {
	t.Parallel()
	client, _ := newClient(t, new(atomic.Int32))
	tests := []struct {
		name string
		in   *awslambda.InvokeInput
	}{
		{"unknown name", &awslambda.InvokeInput{FunctionName: aws.String("Nope")}},
		{"unknown ARN", &awslambda.InvokeInput{FunctionName: aws.String("arn:aws:lambda:us-east-1:000000000000:function:Nope")}},
		{"unsupported qualifier", &awslambda.InvokeInput{FunctionName: aws.String("Greeter"), Qualifier: aws.String("7")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := client.Invoke(t.Context(), tc.in)
			var rnf *types.ResourceNotFoundException
			if !errors.As(err, &rnf) {
				t.Fatalf("Invoke error = %v, want ResourceNotFoundException", err)
			}
		})
	}
}

func TestInvokeEventAndDryRun(t *testing.T) {
	t.Parallel()
	var events atomic.Int32
	client, host := newClient(t, &events)
	tests := []struct {
		name       string
		typ        types.InvocationType
		wantStatus int32
		wantEvents int32
	}{
		{"Event is accepted and runs in the background", types.InvocationTypeEvent, http.StatusAccepted, 1},
		{"DryRun only checks", types.InvocationTypeDryRun, http.StatusNoContent, 0},
	}
	for _, tc := range tests { // sequential: both count invocations of the same function
		t.Run(tc.name, func(t *testing.T) {
			before := events.Load()
			out, err := client.Invoke(t.Context(), &awslambda.InvokeInput{FunctionName: aws.String("Counter"), InvocationType: tc.typ})
			if err != nil {
				t.Fatalf("Invoke: %v", err)
			}
			host.Wait()
			if out.StatusCode != tc.wantStatus {
				t.Errorf("status = %d, want %d", out.StatusCode, tc.wantStatus)
			}
			if got := events.Load() - before; got != tc.wantEvents {
				t.Errorf("handler ran %d times, want %d", got, tc.wantEvents)
			}
		})
	}
}

func TestOtherRoutesAreUnknownOperations(t *testing.T) {
	t.Parallel()
	_, host := newClient(t, new(atomic.Int32))
	srv := httptest.NewServer(host)
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL + "/2015-03-31/functions/Greeter/invocations")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || resp.Header.Get("X-Amzn-ErrorType") != "UnknownOperationException" {
		t.Errorf("GET invocations = %d %q, want 404 UnknownOperationException", resp.StatusCode, resp.Header.Get("X-Amzn-ErrorType"))
	}
}

func TestStatsCountInvocationsAndBilledMilliseconds(t *testing.T) {
	t.Parallel()
	client, host := newClient(t, new(atomic.Int32))
	for _, typ := range []types.InvocationType{types.InvocationTypeRequestResponse, types.InvocationTypeEvent, types.InvocationTypeDryRun} {
		if _, err := client.Invoke(t.Context(), &awslambda.InvokeInput{FunctionName: aws.String("Counter"), InvocationType: typ}); err != nil {
			t.Fatalf("Invoke %s: %v", typ, err)
		}
	}
	if _, err := client.Invoke(t.Context(), &awslambda.InvokeInput{FunctionName: aws.String("Nope")}); err == nil {
		t.Fatal("Invoke of an unknown function succeeded")
	}
	host.Wait()
	stats := host.Stats()
	if len(stats) != 1 {
		t.Fatalf("stats = %+v, want only Counter (DryRun and unknown functions are not invocations)", stats)
	}
	c := stats["Counter"]
	if c.Invocations != 2 {
		t.Errorf("Counter invocations = %d, want 2 (RequestResponse and Event)", c.Invocations)
	}
	// Each invocation is billed at least one whole millisecond, and never less than it ran.
	if c.BilledMillis < c.Invocations || c.BilledMillis*int64(time.Millisecond) < c.DurationNanos || c.DurationNanos <= 0 {
		t.Errorf("Counter = %+v: billed ms must be ≥ 1 per invocation and ≥ the run time", c)
	}

	srv := httptest.NewServer(host.StatsHandler())
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var served map[string]lambdahost.FunctionStats
	if err := json.NewDecoder(resp.Body).Decode(&served); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(stats, served); d != "" {
		t.Errorf("served stats (-Stats +served):\n%s", d)
	}
}
