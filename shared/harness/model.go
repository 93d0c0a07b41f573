package harness

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/session"
)

// Model is one model provider bound to a Session's configuration. Stream sends one request and returns the
// response as a stream of parts. It returns a *ModelError when the provider refuses or fails the request; any
// other error is reported as a harness error. Implementations must be safe for use by one goroutine at a time
// per Stream and must never put credentials into errors.
type Model interface {
	Stream(ctx context.Context, req Request) (Stream, error)
}

// Stream is a model response being received. Next returns the parts in order; after the last part it returns
// io.EOF, and after a failure a *ModelError (or ctx's error). Close releases the response; it is safe to call
// more than once and after io.EOF. The context given to Model.Stream governs the whole stream.
type Stream interface {
	Next() (Part, error)
	Close() error
}

// PartKind says which member of a Part is set.
type PartKind int

// Part kinds.
const (
	// PartText is a text delta of the assistant's message (Part.Text, optionally Part.Phase).
	PartText PartKind = iota + 1
	// PartCall is one complete function call (Part.Call). Calls keep the model's order.
	PartCall
	// PartUsage is token usage of the response (Part.Usage); several usage parts are added up.
	PartUsage
	// PartStop is the provider's reason for ending the response (Part.Stop), sent only when the harness acts on it.
	PartStop
)

// Part is one element of a model response.
type Part struct {
	Kind PartKind
	// Text is the delta of a PartText; never empty.
	Text string
	// Phase optionally declares, on a PartText, the phase of the message the text belongs to
	// (session.PhaseCommentary when function calls will follow, session.PhaseFinalAnswer when none will).
	// A provider that knows it lets the harness stream the text live; when it is "" the harness holds the text
	// back until the phase is known (a function call arrives, or the response ends).
	Phase string
	// Call is the function call of a PartCall.
	Call *Call
	// Usage is the token usage of a PartUsage.
	Usage *session.Usage
	// Stop is the reason of a PartStop: session.StopMaxTokens when the response ended at its output-token limit
	// (Request.MaxOutputTokens or the provider's own).
	Stop string
}

// Role of a conversation message.
type Role string

// Roles. RoleTool messages carry function results for the calls of the preceding assistant message.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one message of the conversation a model sees, built from the Session's history (see Conversation).
//   - RoleUser: Text (the input_text parts joined) and Images (input_image URLs, in order).
//   - RoleAssistant: Text ("" when the model only called functions) and Calls, in call order.
//   - RoleTool: Results, one per answered call, in the order the calls were made.
type Message struct {
	Role    Role
	Text    string
	Images  []string
	Calls   []Call
	Results []Result
}

// Call is a function call the model made. ID is its Core call id, unique within the Session: a provider's stream
// may carry the provider's own id (or none), which Run replaces with one it mints ("call_<turn>_<n>", see Run);
// Arguments is a JSON value (an object for well-formed calls; empty means {}).
type Call struct {
	ID        string
	Name      string
	Arguments json.RawMessage
}

// Result is the caller's tool result for a call, as the model reads it. Output is the text of the result (a JSON
// string output as its value; text parts joined; any other JSON value as its JSON text; "" for none). IsError is
// set when the caller reported failure (success false); Output then holds the error text if there was one.
type Result struct {
	CallID  string
	Name    string
	Output  string
	IsError bool
	// Images are images the tool produced (BuiltinResult.Images); providers that accept images in tool results
	// send them after Output, the others leave them out.
	Images []Image
}

// Tool is a function the model may call (docs/agents-api.md §3.1): Parameters is its JSON Schema.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// Request is one provider-neutral model request.
type Request struct {
	// Model is the provider's model id: x_baton.model_provider.model when set, else the Agent's `model`.
	Model string
	// TurnID is the Turn this step belongs to. Models that mint their own call ids derive them from it so that
	// ids are unique within the Session and stable for the same history.
	TurnID string
	// Instructions are the system instructions ("" for none).
	Instructions string
	// Messages is the conversation, oldest first; the last message is a user message or tool results.
	Messages []Message
	// Tools are the functions the model may call, in declaration order.
	Tools []Tool
	// OutputSchema is the JSON Schema of text.format {type:"json_schema"}; nil when the output is free text.
	OutputSchema json.RawMessage
	// MaxOutputTokens bounds the output tokens of the response (tokens; 0 = the provider's default). Run sets it
	// from agent.Controls.MaxTokens minus what the task's earlier model calls used.
	MaxOutputTokens int
	// Temperature (0–2) and TopP (0–1) are the sampling parameters (agent.Controls); nil = the provider's default.
	Temperature *float64
	TopP        *float64
}

// ProtocolScripted is the default model provider protocol (agent.ProtocolScripted): the deterministic scripted
// model of package harness/scripted.
const ProtocolScripted = agent.ProtocolScripted

// Provider builds the Model of a Session from its frozen configuration (the Agent's model, x_baton.model_provider
// and x_baton.script). It returns an error, never containing credentials, when the configuration is unusable;
// Providers.Model reports it as a *ConfigError.
type Provider func(cfg agent.Config) (Model, error)

// Providers maps x_baton.model_provider.protocol to its Provider (docs/decisions.md §1). A runtime builds one at
// start-up with the providers it hosts; protocols without an entry are not available in that runtime.
type Providers map[string]Provider

// Model returns the Model for cfg. Errors: *ConfigError wrapping ErrProtocolUnavailable when the protocol has no
// provider in p; *ConfigError wrapping the provider's error when the provider rejects the configuration.
func (p Providers) Model(cfg agent.Config) (Model, error) {
	proto := cfg.ModelProtocol()
	if proto == "" {
		return nil, &ConfigError{Cause: "the configuration selects no model provider (docs/model-providers.md \"Choosing a model\")", Err: ErrNoModelProvider}
	}
	build, ok := p[proto]
	if !ok {
		return nil, &ConfigError{Cause: fmt.Sprintf("model provider protocol %q is not available in this runtime", proto), Err: ErrProtocolUnavailable}
	}
	m, err := build(cfg)
	if err != nil {
		return nil, &ConfigError{Cause: fmt.Sprintf("model provider %q: %v", proto, err), Err: err}
	}
	return m, nil
}
