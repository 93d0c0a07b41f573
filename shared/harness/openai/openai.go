package openai

import (
	"net/http"

	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/baton-run/baton/shared/netguard"
	"io"
	"net/url"
	"os"
	"sort"
	"strings"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/harness"
)

// Protocols this package serves (x_baton.model_provider.protocol, docs/decisions.md §1).
const (
	// ProtocolResponses is the OpenAI Responses API (POST {base_url}/responses, streamed).
	ProtocolResponses = "openai_responses"
	// ProtocolChat is the OpenAI Chat Completions API (POST {base_url}/chat/completions, streamed).
	ProtocolChat = "openai_chat"
)

// Options are the runtime's defaults for both protocols. A Session's x_baton.model_provider.base_url and api_key
// win over them.
type Options struct {
	// APIKey is used when the Session configures none (OPENAI_API_KEY); "" sends no Authorization header, which is
	// what local compatible servers (vLLM, Ollama) accept.
	APIKey string
	// BaseURL is used when the Session configures none (OPENAI_BASE_URL); "" means https://api.openai.com/v1/.
	BaseURL string
	// ClientOptions are appended to every client's options (tests: option.WithMaxRetries, option.WithHTTPClient).
	ClientOptions []option.RequestOption
}

// OptionsFromEnv reads Options from the runtime's environment: OPENAI_API_KEY and OPENAI_BASE_URL.
func OptionsFromEnv() Options {
	return Options{APIKey: os.Getenv("OPENAI_API_KEY"), BaseURL: os.Getenv("OPENAI_BASE_URL")}
}

// Register adds ProtocolResponses and ProtocolChat to p with the runtime defaults opts.
func Register(p harness.Providers, opts Options) {
	p[ProtocolResponses] = Provider(ProtocolResponses, opts)
	p[ProtocolChat] = Provider(ProtocolChat, opts)
}

// Provider returns the harness.Provider of protocol (ProtocolResponses or ProtocolChat). The Model it builds talks
// to x_baton.model_provider.base_url (else opts.BaseURL, else OpenAI) with api_key (else opts.APIKey). Errors
// (never containing the key or the URL): a base_url that is not an absolute http or https URL; no model id
// (x_baton.model_provider.model or the Agent's model).
func Provider(protocol string, opts Options) harness.Provider {
	return func(cfg agent.Config) (harness.Model, error) {
		ep := harness.ResolveEndpoint(cfg, opts.BaseURL, opts.APIKey)
		model, baseURL, key, callerEndpoint := ep.Model, ep.BaseURL, ep.APIKey, ep.CallerChosen
		if model == "" {
			return nil, fmt.Errorf("%s needs a model id (x_baton.model_provider.model or the agent's model)", protocol)
		}
		clientOpts := []option.RequestOption{option.WithAPIKey(key)}
		if baseURL != "" {
			u, err := url.Parse(baseURL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return nil, errors.New("x_baton.model_provider.base_url must be an absolute http or https URL")
			}
			clientOpts = append(clientOpts, option.WithBaseURL(baseURL))
		}
		if callerEndpoint {
			clientOpts = append(clientOpts, option.WithHTTPClient(&http.Client{Transport: netguard.Transport()}))
		}
		clientOpts = append(clientOpts, opts.ClientOptions...)
		m := &Model{protocol: protocol, client: oai.NewClient(clientOpts...), key: key}
		return m, nil
	}
}

// Model is an OpenAI (or compatible) model of one Session, speaking one protocol. It is safe for concurrent use.
type Model struct {
	protocol string
	client   oai.Client
	// key is kept only to scrub it from error causes.
	key string
}

var _ harness.Model = (*Model)(nil)

// Stream sends req with the Model's protocol (see ResponsesParams and ChatParams for the mapping) and returns the
// streamed parts: text deltas, then every function call in the model's order (arguments accumulated from the
// deltas; "" → {}), then usage. Errors: *harness.ModelError for an API error (HTTP status, error code and message
// in the cause, with the API key scrubbed), an error event, a failed or incomplete response (e.g. max output
// tokens — unless the request set MaxOutputTokens: a response cut at that limit ends with a harness.PartStop
// session.StopMaxTokens after its text and usage, its cut calls dropped), malformed call arguments or a stream that ends before the response completed; ctx's error when ctx ends.
func (m *Model) Stream(ctx context.Context, req harness.Request) (harness.Stream, error) {
	if m.protocol == ProtocolChat {
		params, err := ChatParams(req)
		if err != nil {
			return nil, &harness.ModelError{Cause: m.protocol + ": " + err.Error()}
		}
		st := &stream[oai.ChatCompletionChunk]{ctx: ctx, m: m, sdk: m.client.Chat.Completions.NewStreaming(ctx, params)}
		st.acc = &chatAccumulator{nextID: callIDs(req), limited: req.MaxOutputTokens > 0}
		return st, nil
	}
	params, err := ResponsesParams(req)
	if err != nil {
		return nil, &harness.ModelError{Cause: m.protocol + ": " + err.Error()}
	}
	st := &stream[responsesEvent]{ctx: ctx, m: m, sdk: m.client.Responses.NewStreaming(ctx, params)}
	st.acc = &responsesAccumulator{limited: req.MaxOutputTokens > 0}
	return st, nil
}

// accumulator turns one protocol's stream events into parts.
type accumulator[T any] interface {
	// take handles one event and returns the parts it completes; a non-nil error fails the stream.
	take(ev T) ([]harness.Part, error)
	// finish is called at the end of the event stream and returns the remaining parts (calls in order, usage), or
	// an error when the response did not complete.
	finish() ([]harness.Part, error)
}

// stream adapts an SDK event stream to harness.Stream.
type stream[T any] struct {
	ctx   context.Context
	m     *Model
	sdk   *ssestream.Stream[T]
	acc   accumulator[T]
	queue []harness.Part
	done  bool
	err   error
}

func (s *stream[T]) Next() (harness.Part, error) {
	for len(s.queue) == 0 {
		if s.err != nil {
			return harness.Part{}, s.err
		}
		if s.done {
			return harness.Part{}, io.EOF
		}
		if !s.sdk.Next() {
			if err := s.sdk.Err(); err != nil {
				s.err = s.m.modelError(s.ctx, err)
				continue
			}
			parts, err := s.acc.finish()
			s.queue, s.err, s.done = append(s.queue, parts...), s.m.wrap(err), true
			continue
		}
		parts, err := s.acc.take(s.sdk.Current())
		s.queue, s.err = append(s.queue, parts...), s.m.wrap(err)
	}
	p := s.queue[0]
	s.queue = s.queue[1:]
	return p, nil
}

func (s *stream[T]) Close() error {
	_ = s.sdk.Close()
	return nil
}

// wrap turns an accumulator's error (a provider-side failure described safely) into a *harness.ModelError.
func (m *Model) wrap(err error) error {
	if err == nil {
		return nil
	}
	return &harness.ModelError{Cause: m.scrub(m.protocol + ": " + err.Error())}
}

// modelError maps an SDK failure: ctx's error when ctx ended; otherwise a *harness.ModelError whose cause has the
// HTTP status, the error code/type and message (never the request, its headers or the key); transport failures
// only say that the request failed. Err holds an error with the same safe text (the SDK error keeps the request,
// Authorization header included, so it is not kept).
func (m *Model) modelError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var cause string
	var apiErr *oai.Error
	var streamErr *ssestream.StreamError
	switch {
	case errors.As(err, &apiErr):
		cause = fmt.Sprintf("%s: HTTP %d", m.protocol, apiErr.StatusCode)
		if code := firstNonEmpty(apiErr.Code, apiErr.Type); code != "" {
			cause += " " + code
		}
		if apiErr.Message != "" {
			cause += ": " + apiErr.Message
		}
	case errors.As(err, &streamErr):
		var body struct {
			Error struct {
				Type    string `json:"type"`
				Code    any    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(streamErr.Event.Data, &body)
		cause = fmt.Sprintf("%s: error event", m.protocol)
		if code := firstNonEmpty(fmt.Sprint(nonNil(body.Error.Code)), body.Error.Type); code != "" {
			cause += " " + code
		}
		if body.Error.Message != "" {
			cause += ": " + body.Error.Message
		}
	default:
		cause = m.protocol + ": the request to the model endpoint failed"
	}
	cause = m.scrub(cause)
	return &harness.ModelError{Cause: cause, Err: errors.New(cause)}
}

// scrub removes the API key from a text that came (partly) from the provider.
func (m *Model) scrub(s string) string {
	if len(m.key) >= 6 {
		s = strings.ReplaceAll(s, m.key, "[redacted]")
	}
	return s
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func nonNil(v any) any {
	if v == nil {
		return ""
	}
	return v
}

// decodeObject decodes a JSON Schema (def when empty) into the map the SDK params want.
func decodeObject(raw json.RawMessage, def string) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage(def)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, errors.New("not a JSON object")
	}
	return m, nil
}

// arguments returns accumulated call arguments as JSON ("" → {}), or an error naming the function.
func arguments(name, s string) (json.RawMessage, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return json.RawMessage("{}"), nil
	}
	if !json.Valid([]byte(s)) {
		return nil, fmt.Errorf("the model returned malformed arguments for function %q", name)
	}
	return json.RawMessage(s), nil
}

// pendingCall is a function call being received.
type pendingCall struct {
	order int64
	id    string
	name  string
	args  strings.Builder
	final *string
}

// callParts returns the calls as parts sorted by order, or an error for malformed arguments or a missing id/name.
func callParts(calls []*pendingCall) ([]harness.Part, error) {
	sort.SliceStable(calls, func(i, j int) bool { return calls[i].order < calls[j].order })
	var parts []harness.Part
	for _, c := range calls {
		raw := c.args.String()
		if c.final != nil {
			raw = *c.final
		}
		args, err := arguments(c.name, raw)
		if err != nil {
			return nil, err
		}
		if c.id == "" || c.name == "" {
			return nil, errors.New("the model returned a function call without a call id or name")
		}
		parts = append(parts, harness.Part{Kind: harness.PartCall, Call: &harness.Call{ID: c.id, Name: c.name, Arguments: args}})
	}
	return parts, nil
}

// resultOutput is the text a function_call_output / tool message carries: the output, prefixed with "Error: " when
// the caller reported failure (neither API has an error flag).
func resultOutput(r harness.Result) string {
	if !r.IsError {
		return r.Output
	}
	if r.Output == "" {
		return "Error"
	}
	return "Error: " + r.Output
}
