// Package rie runs every Lambda function's bootstrap as Lambda runs it: each function's main package is built for
// provided.al2023 (linux, this machine's architecture, the same tags as `sam build`), started under the AWS Lambda
// Runtime Interface Emulator (built from its Go module, pinned in tools/rie) with local/sam-env.json's variables
// pointed at a running local stack, and sent every events/ file over the emulator's invoke API. Each answer must
// match what the same event returns through the same handler in-process (the replay of tests/integration/events):
// the same status and body shape, and for the stream function the same status, content type and sequence of event
// types (README "sam local").
package rie
