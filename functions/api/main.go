// Command api is the ApiFunction Lambda: the Agents API and the admin API behind API Gateway's REST API
// (proxy integration), buffered through aws-lambda-go-api-proxy. It runs the same http.Handler as the local server
// (shared/httpapi); the streaming routes are served by the StreamFunction.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/baton-run/baton/shared/admission"
	"github.com/baton-run/baton/shared/httpapi"
	"github.com/baton-run/baton/shared/setup"
)

func main() {
	deps, err := setup.FromEnvironment(context.Background(), setup.API, admission.Execution{})
	if err != nil {
		log.Fatalf("api: %v", err)
	}
	h := httpapi.New(deps.Engine, httpapi.Options{AdminKey: deps.Config.AdminKey})
	lambda.Start(httpadapter.New(h).ProxyWithContext)
}
