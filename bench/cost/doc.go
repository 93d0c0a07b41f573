// Package cost turns what `make bench` measures for one turn (Step Functions state transitions, DynamoDB consumed
// request units, Lambda invocations and their durations, API Gateway requests) into US dollars at public
// us-east-1 on-demand prices (docs/bench.md "Cost"). It is pure arithmetic: the prices are named constants with the
// date and the source they were read from, and Estimate multiplies.
//
// It does not measure anything (bench/turnbench does), and it leaves out what a turn does not drive: free tiers,
// storage, data transfer, CloudWatch Logs, the ECS runtime tasks (billed by the hour, not per turn) and tiered
// discounts at high volume.
package cost
