// Package openai owns the `openai_responses` and `openai_chat` model providers of the baton harness
// (x_baton.model_provider.protocol, docs/decisions.md §1; issue 4 "Model providers"): the OpenAI Responses API and the
// Chat Completions API, streamed, through github.com/openai/openai-go/v3. Any compatible endpoint (vLLM, Ollama,
// a gateway) works by x_baton.model_provider.base_url.
//
// Configuration: model from x_baton.model_provider.model, else the Agent's `model`; base_url, else the runtime's
// OPENAI_BASE_URL, else https://api.openai.com/v1/; api_key (write-only on the API), else the runtime's
// OPENAI_API_KEY, else none. The key is sent only as the Authorization bearer token to that base URL; it is
// scrubbed from every error cause and never logged.
//
// Mapping: see ResponsesParams and ChatParams for requests. Responses streams are read from
// response.output_item.added/done, response.output_text.delta, response.function_call_arguments.delta/done,
// response.completed (usage), response.incomplete, response.failed and error events; Chat Completions streams from
// choices[0].delta.content / tool_calls (arguments accumulated per index), finish_reason and the usage chunk.
// Function calls are emitted complete, in the model's order (output_index / tool call index), after the text.
// A message phase declared by the Responses API (commentary / final_answer) is passed on so the harness can stream
// the text live.
//
// It does not own: the agent loop (package harness) or admission of x_baton (package admission).
package openai
