// Command api is the ApiFunction Lambda: the Agents API and the admin API behind API Gateway's REST API
// (proxy integration), buffered through aws-lambda-go-api-proxy. It runs the same http.Handler as the local server
// (shared/httpapi); the streaming routes are served by the StreamFunction.
package main

import (
	"context"
	"log"
	"net/http"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/baton-run/baton/shared/admission"
	"github.com/baton-run/baton/shared/agentcore/translate"
	"github.com/baton-run/baton/shared/httpapi"
	"github.com/baton-run/baton/shared/setup"
	"github.com/baton-run/baton/shared/sigv4auth"
)

func main() {
	deps, err := setup.FromEnvironment(context.Background(), setup.API, translate.Admission{Next: admission.Execution{}})
	if err != nil {
		log.Fatalf("api: %v", err)
	}
	h := httpapi.New(deps.Engine, httpapi.Options{AdminKey: deps.Config.AdminKey, RuntimeSessions: deps.Store})
	lambda.Start(httpadapter.New(stagePath(h)).ProxyWithContext)
}

// stagePath records the path the client signed for SigV4 verification: behind a REST API stage the request path
// lacks the stage prefix that requestContext.path keeps (docs/agentcore.md §2). It also records API Gateway's
// request id for the access log (docs/operations.md §2).
func stagePath(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rc, ok := core.GetAPIGatewayContextFromContext(r.Context()); ok {
			ctx := httpapi.WithGatewayRequestID(r.Context(), rc.RequestID)
			if rc.Path != "" {
				ctx = sigv4auth.WithSignedPath(ctx, rc.Path)
			}
			r = r.WithContext(ctx)
		}
		h.ServeHTTP(w, r)
	})
}
