package harness

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/baton-run/baton/shared/agent"
)

// MCPToolSeparator joins a server_label and a server tool name into the name the model sees for an HTTP MCP tool:
// "<server_label>__<tool>" (e.g. "everything__get-sum"). Public mcp_call items keep the original label and name.
const MCPToolSeparator = "__"

// ProviderToolName is the rule every model-facing tool name Baton derives satisfies: the strictest common rule of
// the providers it speaks (OpenAI Responses and Chat Completions function names, Anthropic Messages tool names and
// Bedrock Converse toolSpec names all accept `^[a-zA-Z0-9_-]{1,64}$`; docs/tools.md "Tool names sent to a model").
var ProviderToolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// MCPToolName returns the model-facing name of tool `name` of server `label`: "<label>__<name>" when that
// satisfies ProviderToolName (e.g. "everything__get-sum"); otherwise every character outside [a-zA-Z0-9_-]
// becomes "_", the result is cut to 53 bytes and "_" plus the first 10 hex digits of the SHA-256 of
// label + NUL + name is appended (at most 64 characters). The mapping is deterministic, so a name read back from a
// model (or rebuilt from an mcp_call item of the history) resolves to the same (label, name); the harness keeps
// the reverse mapping and items and events always carry the original names.
func MCPToolName(label, name string) string {
	return providerSafe(label+MCPToolSeparator+name, label+"\x00"+name)
}

// providerSafe returns n when it satisfies ProviderToolName, else n with every other byte replaced by "_", cut to
// 53 bytes, plus "_" and the first 10 hex digits of the SHA-256 of key.
func providerSafe(n, key string) string {
	if ProviderToolName.MatchString(n) {
		return n
	}
	sum := sha256.Sum256([]byte(key))
	suffix := "_" + hex.EncodeToString(sum[:])[:10]
	var b strings.Builder
	for i := 0; i < len(n) && b.Len() < 64-len(suffix); i++ {
		c := n[i]
		if c == '_' || c == '-' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') {
			b.WriteByte(c)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String() + suffix
}

// Bounds of MCP work within one activity task.
const (
	// MCPConnectTimeout bounds connecting to one server and listing its tools.
	MCPConnectTimeout = 20 * time.Second
	// MCPCallTimeout bounds one tools/call.
	MCPCallTimeout = 2 * time.Minute
)

// MCPServer is one HTTP MCP server a run connects to: the declaration's server_label and server_url, the
// bearer token of its selected Vault credential ("" = anonymous) and the HTTP headers to send on every request
// (token-vault references already resolved; nil = none). Allowed-tools filtering and the required flag are
// applied by the harness, not by the connector.
type MCPServer struct {
	Label       string
	URL         string
	BearerToken string
	Headers     map[string]string
	// Gateway, when set, is the agentcore_gateway declaration this server is (docs/tools.md "Gateway"): URL is then
	// empty and the connector resolves the gateway's MCP URL from its ARN and signs or authorizes each request as
	// its OutboundAuth says; a connector that cannot returns an error.
	Gateway *agent.HostedTool
}

// MCPConnector opens MCP client sessions (package harness/mcp implements it with the official go-sdk over
// streamable HTTP). Connect initializes the session; it returns an error when the server cannot be reached or
// refuses initialization. The error must contain neither the bearer token nor a header value.
type MCPConnector interface {
	Connect(ctx context.Context, server MCPServer) (MCPSession, error)
}

// MCPSession is an initialized MCP client session.
type MCPSession interface {
	// ListTools returns every tool of the server (all pages), in the server's order.
	ListTools(ctx context.Context) ([]MCPTool, error)
	// CallTool calls a tool with JSON object arguments, sent byte for byte as given (no re-encoding through Go
	// values, so an integer beyond 2^53 arrives unchanged). A tool-level failure (the result's isError) is a result
	// with IsError set, not an error; an error means the call itself failed (transport, protocol, unknown tool).
	CallTool(ctx context.Context, name string, arguments json.RawMessage) (MCPResult, error)
	// Close ends the session.
	Close() error
}

// MCPTool is a tool a server lists: its original name, description and input JSON Schema (nil = none given).
type MCPTool struct {
	Name        string
	Description string
	InputSchema json.RawMessage
}

// MCPResult is the observed result of a tools/call, mapped by the connector (docs/mcp.md "Results"): Output is a
// JSON value — the structuredContent when the server returned one, otherwise the text content parts joined as a
// JSON string ("" when there are none). IsError reports the result's isError.
type MCPResult struct {
	Output  json.RawMessage
	IsError bool
}

// CredentialResolver resolves token-vault references in MCP server headers at invocation time
// (docs/tools.md "MCP headers"). ResolveAPIKey gets the ARN inside "${…}" (e.g.
// "arn:aws:bedrock-agentcore:us-west-2:123456789012:token-vault/default/apikeycredentialprovider/my-key") and
// returns the API key stored for it. Errors name the reference, never a key. The token vault implements it; the
// harness only declares it.
type CredentialResolver interface {
	ResolveAPIKey(ctx context.Context, arn string) (string, error)
}

// ErrNoCredentialResolver: a header holds a token-vault reference but the runtime has no CredentialResolver
// (Job.Credentials nil). The server fails to connect (a required server fails the run).
var ErrNoCredentialResolver = errors.New("this runtime has no token vault to resolve credential references")

// vaultRef is a token-vault reference inside a header value: "${arn:…}".
var vaultRef = regexp.MustCompile(`\$\{(arn:[^}]+)\}`)

// resolveHeaders returns the headers with every "${arn:…}" reference replaced by the key the resolver returns
// (a value may hold other text around it, e.g. "Bearer ${arn:…}"). nil in, nil out. Errors name the header and
// the reference, never a resolved value; a nil resolver with a reference gives ErrNoCredentialResolver.
func resolveHeaders(ctx context.Context, headers map[string]string, r CredentialResolver) (map[string]string, error) {
	if len(headers) == 0 {
		return nil, nil
	}
	keys := make([]string, 0, len(headers))
	for k := range headers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]string, len(headers))
	for _, k := range keys {
		v := headers[k]
		var failed error
		out[k] = vaultRef.ReplaceAllStringFunc(v, func(m string) string {
			if failed != nil {
				return ""
			}
			arn := vaultRef.FindStringSubmatch(m)[1]
			if r == nil {
				failed = fmt.Errorf("header %q references %s: %w", k, arn, ErrNoCredentialResolver)
				return ""
			}
			key, err := r.ResolveAPIKey(ctx, arn)
			if err != nil {
				failed = fmt.Errorf("header %q: resolve %s: %w", k, arn, err)
				return ""
			}
			return key
		})
		if failed != nil {
			return nil, failed
		}
	}
	return out, nil
}

// compileInputSchema compiles an MCP tool's input schema once per activity task (external references refused).
func compileInputSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	const loc = "urn:baton:mcp-input-schema"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	return c.Compile(loc)
}

// checkArguments validates a call's arguments against a compiled input schema (nil = not validated). Numbers are
// decoded as json.Number, so 3.5 is not an integer and 9007199254740993 is. The error text is what the model
// reads: the violations, not the arguments.
func checkArguments(schema *jsonschema.Schema, args json.RawMessage) error {
	if schema == nil {
		return nil
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return fmt.Errorf("the arguments are not valid JSON: %v", err)
	}
	if err := schema.Validate(v); err != nil {
		return fmt.Errorf("the arguments do not match the tool's input schema: %v", err)
	}
	return nil
}

// BuiltinToolNames are the harness-run default tools a configuration may ask for (agent.Controls.BuiltinTools),
// in the order they are offered.
var BuiltinToolNames = []string{"shell", "file_operations"}

// BuiltinTool is the implementation of one harness-run builtin tool (docs/tools.md "Builtin tools"): a default
// tool (shell, file_operations) or a declared agentcore_code_interpreter / agentcore_browser tool. The harness
// offers a default tool only when the configuration asks for builtin tools, allowedTools allows it and the runtime
// supplies an implementation in Job.Builtins (keyed by its name); a declared tool is keyed by its declared name
// and a declared tool the runtime cannot supply fails the run with a *ConfigError. Definition gives its
// description and parameters (the harness sets the name). Call runs it with the model's JSON arguments (already
// checked against Definition's parameters) and returns what it observed; an error means the tool could not run
// at all (reported to the model as an error result and journaled as a failed item).
type BuiltinTool interface {
	Definition() Tool
	Call(ctx context.Context, arguments json.RawMessage) (BuiltinResult, error)
}

// BuiltinResult is what one builtin tool call observed (docs/tools.md "Builtin tools"):
//   - Output is the text the model reads, already bounded by the tool's own limits;
//   - Command is a one-line rendering of the call for the command_execution item (the shell command, the code run);
//     "" means the tool name and its arguments;
//   - Cwd is the working directory as the tool sees it ("" when it has none);
//   - ExitCode is the process exit status when the tool ran one (0 otherwise);
//   - IsError marks a tool-level failure the model reads as an error (a refused path, a timeout, a page that did
//     not load); a non-zero exit status alone is not one (the model reads the status);
//   - Images are images the tool produced (a browser screenshot), passed to providers that accept images in tool
//     results and otherwise left out.
type BuiltinResult struct {
	Output   string
	Command  string
	Cwd      string
	ExitCode int
	IsError  bool
	Images   []Image
}

// Image is an image a tool produced: MediaType ("image/png", "image/jpeg") and the encoded bytes. Images reach the
// model only within the activity task that produced them: the history keeps the tool's text, not its images.
type Image struct {
	MediaType string
	Data      []byte
}

// DataURL renders the image as a `data:<media type>;base64,…` URL.
func (i Image) DataURL() string {
	return "data:" + i.MediaType + ";base64," + base64.StdEncoding.EncodeToString(i.Data)
}
