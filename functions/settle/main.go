// Command settle is the SettleFunction Lambda: the Settle state invokes it with the run's outcome; it commits the
// turn's terminal state (completed or failed, with its events) and returns it (docs/internals.md).
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/baton-run/baton/shared/orchestration/sfn"
	"github.com/baton-run/baton/shared/setup"
)

func main() {
	deps, err := setup.FromEnvironment(context.Background(), setup.Settle, nil)
	if err != nil {
		log.Fatalf("settle: %v", err)
	}
	lambda.Start(sfn.SettleHandler(deps.Engine))
}
