// Package bedrock owns the `bedrock_converse` model provider of the baton harness (x_baton.model_provider.protocol
// "bedrock_converse", docs/decisions.md §1; issue 4 "Model providers"): Amazon Bedrock's ConverseStream operation through
// aws-sdk-go-v2's bedrockruntime client.
//
// Configuration: the model id is x_baton.model_provider.model, else the Agent's `model`. Region, endpoint and
// credentials come only from the runtime's deployment AWS configuration (the default chain;
// AWS_ENDPOINT_URL_BEDROCK_RUNTIME points it elsewhere, e.g. a test server). A Session that sets base_url or
// api_key for this protocol is refused with a *harness.ConfigError: Baton never signs requests to a host a
// request chose.
//
// Mapping (Input and Model.Stream): system instructions, user text and data: URL images, assistant text and
// toolUse blocks, tool results as toolResult blocks (status success/error), function definitions as
// toolConfig toolSpecs with inputSchema.json; streamed text deltas, toolUse blocks accumulated into complete calls in
// block order, metadata usage, stop reasons, and AWS errors as *harness.ModelError.
//
// It does not own: the agent loop (package harness), admission of x_baton (package admission), or loading the AWS
// configuration (package setup).
package bedrock
