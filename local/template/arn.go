package template

// Local account, region and ARNs of docs/internals.md "Local ARNs and names".
const (
	// LocalAccountID is the AWS account id of every local ARN.
	LocalAccountID = "000000000000"
	// LocalRegion is the region of every local ARN and of the local SDK clients.
	LocalRegion = "us-east-1"
	// LocalPartition is the partition of every local ARN.
	LocalPartition = "aws"
	// LocalStackName is what Ref AWS::StackName resolves to locally.
	LocalStackName = "baton-local"
)

// FunctionARN returns the local ARN of the Lambda function named name,
// e.g. arn:aws:lambda:us-east-1:000000000000:function:ParkFunction.
func FunctionARN(name string) string {
	return "arn:" + LocalPartition + ":lambda:" + LocalRegion + ":" + LocalAccountID + ":function:" + name
}

// ActivityARN returns the local ARN of the Step Functions Activity named name,
// e.g. arn:aws:states:us-east-1:000000000000:activity:BatonActivity.
func ActivityARN(name string) string {
	return "arn:" + LocalPartition + ":states:" + LocalRegion + ":" + LocalAccountID + ":activity:" + name
}

// StateMachineARN returns the local ARN of the state machine named name,
// e.g. arn:aws:states:us-east-1:000000000000:stateMachine:TurnStateMachine.
func StateMachineARN(name string) string {
	return "arn:" + LocalPartition + ":states:" + LocalRegion + ":" + LocalAccountID + ":stateMachine:" + name
}

// TableARN returns the local ARN of the DynamoDB table named name.
func TableARN(name string) string {
	return "arn:" + LocalPartition + ":dynamodb:" + LocalRegion + ":" + LocalAccountID + ":table/" + name
}

// genericARN is the local ARN of a resource type that the local stack does not model; it only needs to be
// non-empty and stable.
func genericARN(service, logicalID string) string {
	return "arn:" + LocalPartition + ":" + service + ":" + LocalRegion + ":" + LocalAccountID + ":" + logicalID
}
