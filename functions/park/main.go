// Command park is the ParkFunction Lambda: the AwaitResults state invokes it with a task token
// (`lambda:invoke.waitForTaskToken`); it stores the token for the turn's round and resumes the turn when every
// pending call already has a result (docs/decisions.md §7, docs/internals.md).
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/baton-run/baton/shared/orchestration/sfn"
	"github.com/baton-run/baton/shared/setup"
)

func main() {
	deps, err := setup.FromEnvironment(context.Background(), setup.Park, nil)
	if err != nil {
		log.Fatalf("park: %v", err)
	}
	lambda.Start(sfn.ParkHandler(deps.Engine))
}
