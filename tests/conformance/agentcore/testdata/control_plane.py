"""boto3 smoke of Baton's AgentCore control plane: the guide's tool list at create, get, an update (boto3 1.43's model has no harness versions operations), the typed not-found error, and a token-vault provider. Reads BATON_AGENTCORE_ENDPOINT, AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY; prints one JSON line with what it saw; exits non-zero on any failure."""
import json
import os
import sys

import boto3

client = boto3.client(
    "bedrock-agentcore-control",
    endpoint_url=os.environ["BATON_AGENTCORE_ENDPOINT"],
    region_name="us-east-1",
    aws_access_key_id=os.environ["AWS_ACCESS_KEY_ID"],
    aws_secret_access_key=os.environ["AWS_SECRET_ACCESS_KEY"],
)

tools = [
    {"type": "remote_mcp", "name": "exa", "config": {"remoteMcp": {"url": "https://mcp.exa.ai/mcp"}}},
    {"type": "remote_mcp", "name": "exa-secure", "config": {"remoteMcp": {
        "url": "https://mcp.exa.ai/mcp",
        "headers": {"x-api-key": "${arn:aws:bedrock-agentcore:us-west-2:123456789012:token-vault/default/apikeycredentialprovider/my-exa-key}"},
    }}},
    {"type": "agentcore_gateway", "name": "my-gateway", "config": {"agentCoreGateway": {
        "gatewayArn": "arn:aws:bedrock-agentcore:us-west-2:123456789012:gateway/my-gateway", "outboundAuth": {"awsIam": {}}}}},
    {"type": "agentcore_browser", "name": "browser"},
    {"type": "agentcore_code_interpreter", "name": "code-interpreter"},
    {"type": "inline_function", "name": "approve_purchase", "config": {"inlineFunction": {
        "description": "Request human approval for a purchase",
        "inputSchema": {"type": "object", "properties": {"item": {"type": "string"}, "amount": {"type": "number"}},
                        "required": ["item", "amount"]}}}},
]

created = client.create_harness(
    harnessName="research_agent",
    executionRoleArn="arn:aws:iam::123456789012:role/MyHarnessRole",
    tools=tools,
)["harness"]
harness_id = created["harnessId"]
got = client.get_harness(harnessId=harness_id)["harness"]
client.update_harness(harnessId=harness_id, systemPrompt=[{"text": "Be brief."}])
latest = client.get_harness(harnessId=harness_id)["harness"]

try:
    client.get_harness(harnessId="missing-0123456789")
    not_found = "no error"
except client.exceptions.ResourceNotFoundException:
    not_found = "ResourceNotFoundException"

client.create_api_key_credential_provider(name="my-exa-key", apiKey="exa-key-from-boto3")
provider = client.get_api_key_credential_provider(name="my-exa-key")

print(json.dumps({
    "status": created["status"],
    "tools": [t["type"] + ":" + t["name"] for t in got["tools"]],
    "createdAtIsDatetime": hasattr(got["createdAt"], "year"),
    "latestPrompt": latest["systemPrompt"],
    "notFound": not_found,
    "providerArn": provider["credentialProviderArn"],
    "providerTimeIsDatetime": hasattr(provider["createdTime"], "year"),
    "providerHasKey": "apiKey" in provider,
}, sort_keys=True))
sys.exit(0)
