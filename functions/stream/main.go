// Command stream is the StreamFunction Lambda: the Agents API's server-sent-event routes (GET …/events and
// streamed session creation) behind API Gateway's REST API response-streaming integration. It runs the same
// http.Handler as the ApiFunction and the local server (shared/httpapi).
package main

import (
	"context"
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/baton-run/baton/shared/httpapi"
	"github.com/baton-run/baton/shared/lambdahttp"
	"github.com/baton-run/baton/shared/setup"
)

func main() {
	deps, err := setup.Load(context.Background())
	if err != nil {
		log.Fatalf("stream: %v", err)
	}
	h := httpapi.New(deps.Engine, httpapi.Options{AdminKey: os.Getenv("BATON_ADMIN_KEY"), RuntimeSessions: deps.Store})
	lambda.Start(lambdahttp.Streaming(h))
}
