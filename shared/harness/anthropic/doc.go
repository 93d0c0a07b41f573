// Package anthropic owns the `anthropic_messages` model provider of the baton harness
// (x_baton.model_provider.protocol "anthropic_messages", docs/decisions.md §1; issue 4 "Model providers"): the Anthropic
// Messages API, streamed, through github.com/anthropics/anthropic-sdk-go/v2. A compatible endpoint works by
// x_baton.model_provider.base_url.
//
// Configuration: model from x_baton.model_provider.model, else the Agent's `model`; base_url, else the runtime's
// ANTHROPIC_BASE_URL, else https://api.anthropic.com; api_key (write-only on the API), else the runtime's
// ANTHROPIC_API_KEY (the SDK's credential chain). The key is sent only to that base URL (by the SDK, as a bearer token), scrubbed from
// every error cause and never logged. Every request asks for at most MaxTokens output tokens.
//
// Mapping: see Params for requests. Streams are read from message_start (input usage), content_block_start
// (tool_use id and name), content_block_delta (text_delta, input_json_delta), content_block_stop (a complete call),
// message_delta (stop_reason, output usage), message_stop and error events.
//
// It does not own: the agent loop (package harness) or admission of x_baton (package admission).
package anthropic
