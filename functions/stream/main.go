// Command stream is the StreamFunction Lambda: the Agents API's server-sent-event routes (GET …/events and
// streamed session creation) behind API Gateway's REST API response-streaming integration. It runs the same
// http.Handler as the ApiFunction and the local server (shared/httpapi).
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/baton-run/baton/shared/admission"
	"github.com/baton-run/baton/shared/agentcore/translate"
	"github.com/baton-run/baton/shared/httpapi"
	"github.com/baton-run/baton/shared/lambdahttp"
	"github.com/baton-run/baton/shared/setup"
)

func main() {
	deps, err := setup.FromEnvironment(context.Background(), setup.Stream, translate.Admission{Next: admission.Execution{}})
	if err != nil {
		log.Fatalf("stream: %v", err)
	}
	h := httpapi.New(deps.Engine, httpapi.Options{AdminKey: deps.Config.AdminKey, RuntimeSessions: deps.Store})
	lambda.Start(lambdahttp.Streaming(h))
}
