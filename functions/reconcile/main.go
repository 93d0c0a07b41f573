// Command reconcile is the ReconcileFunction Lambda, run on a schedule: it starts every turn that was written but
// whose execution was not confirmed started (a crash between the write and StartExecution). Execution names are
// turn ids, so nothing is ever started twice.
package main

import (
	"context"
	"log"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/baton-run/baton/shared/orchestration/sfn"
	"github.com/baton-run/baton/shared/setup"
)

func main() {
	deps, err := setup.FromEnvironment(context.Background(), setup.Reconcile, nil)
	if err != nil {
		log.Fatalf("reconcile: %v", err)
	}
	lambda.Start(sfn.ReconcileHandler(deps.Engine, time.Minute))
}
