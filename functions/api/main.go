// Command api is the ApiFunction Lambda: the Agents API and the admin API behind API Gateway's REST API
// (proxy integration), buffered through aws-lambda-go-api-proxy. It runs the same http.Handler as the local server
// (shared/httpapi); the streaming routes are served by the StreamFunction.
package main

import (
	"context"
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/baton-run/baton/shared/httpapi"
	"github.com/baton-run/baton/shared/setup"
)

func main() {
	deps, err := setup.Load(context.Background())
	if err != nil {
		log.Fatalf("api: %v", err)
	}
	h := httpapi.New(deps.Engine, httpapi.Options{AdminKey: os.Getenv("BATON_ADMIN_KEY")})
	lambda.Start(httpadapter.New(h).ProxyWithContext)
}
