"""The guide's two boto3 examples against Baton's local stack, unchanged but for how the clients are built (endpoint,
credentials, region): the six-tool `tools` list at create and at invoke, and the `get_weather` inline-function flow
(streamed toolUse capture, then the follow-up toolResult). The harness runs the scripted model (docs/agentcore.md:
modelId baton.scripted). Reads BATON_AGENTCORE_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, HARNESS_ARN;
prints one JSON line with what it saw; exits non-zero on any failure."""
import json
import os
import sys
import uuid

import boto3


def make(service):
    return boto3.client(
        service,
        endpoint_url=os.environ["BATON_AGENTCORE_ENDPOINT"],
        region_name="us-east-1",
        aws_access_key_id=os.environ["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=os.environ["AWS_SECRET_ACCESS_KEY"],
    )


client = make("bedrock-agentcore")

# The harness (scripted model, created by the Go test: boto3 1.43's model lacks bedrockModelConfig.additionalParams).
HARNESS_ARN = os.environ["HARNESS_ARN"]

# The guide's "Add tools" list (six tool types' shapes), at invoke: admitted, carried, the turn answers.
six_tools = [
    {"type": "remote_mcp", "name": "exa", "config": {"remoteMcp": {"url": "https://mcp.exa.ai/mcp"}}},
    {"type": "agentcore_gateway", "name": "my-gateway", "config": {"agentCoreGateway": {
        "gatewayArn": "arn:aws:bedrock-agentcore:us-west-2:123456789012:gateway/my-gateway", "outboundAuth": {"awsIam": {}}}}},
    {"type": "agentcore_browser", "name": "browser"},
    {"type": "agentcore_code_interpreter", "name": "code-interpreter"},
    {"type": "inline_function", "name": "approve_purchase", "config": {"inlineFunction": {
        "description": "Request human approval for a purchase",
        "inputSchema": {"type": "object", "properties": {"item": {"type": "string"}, "amount": {"type": "number"}},
                        "required": ["item", "amount"]}}}},
]
plain = client.invoke_harness(harnessArn=HARNESS_ARN, runtimeSessionId=str(uuid.uuid4()), tools=six_tools,
                              messages=[{"role": "user", "content": [{"text": "Hello there"}]}])
plain_stops = [e["messageStop"]["stopReason"] for e in plain["stream"] if "messageStop" in e]

SESSION_ID = str(uuid.uuid4())

# ---- the guide's inline-function example, verbatim from here ----
tools = [{
    "type": "inline_function",
    "name": "get_weather",
    "config": {"inlineFunction": {
        "description": "Get the current weather for a city.",
        "inputSchema": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"]
        }
    }}
}]

# 1. Invoke with the inline function tool
response = client.invoke_harness(
    harnessArn=HARNESS_ARN,
    runtimeSessionId=SESSION_ID,
    tools=tools,
    messages=[{"role": "user", "content": [{"text": "What's the weather in Seattle?"}]}],
)

# 2. Capture the toolUseId and input, then wait for the handoff boundary
tool_use_id = None
tool_block_index = None
tool_input = None
last_stop_reason = None
for event in response["stream"]:
    if "contentBlockStart" in event:
        content_block_start = event["contentBlockStart"]
        start = content_block_start.get("start", {})
        if (
            tool_use_id is None
            and "toolUse" in start
            and start["toolUse"].get("name") == "get_weather"
        ):
            tool_use_id = start["toolUse"]["toolUseId"]
            tool_block_index = content_block_start["contentBlockIndex"]
    if "contentBlockDelta" in event:
        content_block_delta = event["contentBlockDelta"]
        delta = content_block_delta.get("delta", {})
        if (
            content_block_delta.get("contentBlockIndex") == tool_block_index
            and "toolUse" in delta
        ):
            tool_input = (tool_input or "") + delta["toolUse"].get("input", "")
    if "messageStop" in event:
        last_stop_reason = event["messageStop"].get("stopReason")

if last_stop_reason != "tool_use" or tool_use_id is None:
    raise RuntimeError("The inline function was not handed off for execution.")

# 3. Execute the tool yourself and send the matching result back
tool_arguments = json.loads(tool_input or "{}")
# Run your client-side implementation with tool_arguments.
tool_result = "72°F, partly cloudy"
response = client.invoke_harness(
    harnessArn=HARNESS_ARN,
    runtimeSessionId=SESSION_ID,
    tools=tools,
    messages=[{
        "role": "user",
        "content": [{
            "toolResult": {
                "toolUseId": tool_use_id,
                "content": [{"text": tool_result}],
                "status": "success",
            }
        }],
    }],
)
# ---- end of the guide's example ----

# Consume response["stream"] (the guide: the streamed tool result and any subsequent agent output).
text, stops = "", []
for event in response["stream"]:
    if "contentBlockDelta" in event:
        text += event["contentBlockDelta"].get("delta", {}).get("text", "")
    if "messageStop" in event:
        stops.append(event["messageStop"]["stopReason"])

print(json.dumps({
    "plainStops": plain_stops,
    "toolArguments": tool_arguments,
    "finalText": text,
    "followUpStops": stops,
}, sort_keys=True))
sys.exit(0)
