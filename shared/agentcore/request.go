package agentcore

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Members Baton cannot honour: rejected by name with a ValidationException (docs/agentcore.md §4.4), never dropped.
const (
	messageHooks           = "lifecycle hooks are not supported by Baton"
	messageArtifact        = "custom container images (environmentArtifact) are not supported by Baton"
	messageAuthorizer      = "JWT authorizers (authorizerConfiguration) are not supported by Baton; requests are authenticated with SigV4"
	messageManagedMemory   = "managed memory is not supported by Baton"
	messageAgentCoreMemory = "AgentCore Memory is not supported by Baton"
	messageVPC             = "VPC networking is not supported by Baton"
	messageFilesystem      = "filesystem configurations are not supported by Baton"
)

var unsupportedMemory = map[string]string{
	"managedMemoryConfiguration":   messageManagedMemory,
	"agentCoreMemoryConfiguration": messageAgentCoreMemory,
}

// environmentVariableName is an environment variable name.
var environmentVariableName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]{0,99}$`)

// tagKey is a resource tag key.
var tagKey = regexp.MustCompile(`^[a-zA-Z0-9\s._:/=+@-]{1,128}$`)

// CreateHarnessRequest is a validated CreateHarness body.
type CreateHarnessRequest struct {
	HarnessName string
	// ClientToken is "" when the caller sent none.
	ClientToken string
	Config      HarnessConfig
}

// decodeBody decodes a request body as a JSON object; an empty body is {}.
func decodeBody(body []byte) (map[string]json.RawMessage, error) {
	if len(strings.TrimSpace(string(body))) == 0 {
		return map[string]json.RawMessage{}, nil
	}
	if jsonKind(body) != '{' {
		return nil, CannotParse("expected a JSON object")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, CannotParse("invalid JSON")
	}
	return m, nil
}

// ParseCreateHarness validates a CreateHarness body (docs/agentcore.md §4.1): harnessName and executionRoleArn
// required, every member's shape and range, unsupported members rejected by name. Defaults are applied
// (HarnessConfig.ApplyDefaults). Unknown members are ignored. Errors: *ValidationError.
func ParseCreateHarness(body []byte) (CreateHarnessRequest, error) {
	m, err := decodeBody(body)
	if err != nil {
		return CreateHarnessRequest{}, err
	}
	var c checker
	var req CreateHarnessRequest
	if v, ok := present(m, "harnessName"); ok {
		req.HarnessName, _ = c.pattern("harnessName", v, 1, 40, HarnessNamePattern, "[a-zA-Z][a-zA-Z0-9_]{0,39}")
	} else {
		c.fail("harnessName", "is required")
	}
	if v, ok := present(m, "executionRoleArn"); ok {
		req.Config.ExecutionRoleARN, _ = c.pattern("executionRoleArn", v, 1, MaxExecutionRoleARN, ExecutionRoleARNPattern, "arn:aws:iam::<account>:role/<name>")
	} else {
		c.fail("executionRoleArn", "is required")
	}
	req.ClientToken = c.clientToken(m)
	cfg := &req.Config
	c.common(m, cfg)
	if v, ok := present(m, "memory"); ok {
		cfg.Memory = c.memory("memory", v)
	}
	if v, ok := present(m, "environmentArtifact"); ok {
		_ = v
		c.fail("environmentArtifact", messageArtifact)
	}
	if _, ok := present(m, "authorizerConfiguration"); ok {
		c.fail("authorizerConfiguration", messageAuthorizer)
	}
	if v, ok := present(m, "tags"); ok {
		cfg.Tags, _ = c.stringMap("tags", v, MaxTags, tagKey.MatchString, "1 to 128 tag key characters")
	}
	if err := c.err(); err != nil {
		return CreateHarnessRequest{}, err
	}
	cfg.ApplyDefaults()
	return req, nil
}

func (c *checker) clientToken(m map[string]json.RawMessage) string {
	v, ok := present(m, "clientToken")
	if !ok {
		return ""
	}
	s, ok := c.str("clientToken", v, MinClientTokenLength, MaxClientTokenLength)
	if ok && !ClientTokenPattern.MatchString(s) {
		c.fail("clientToken", "must match [a-zA-Z0-9](-*[a-zA-Z0-9]){0,256}")
		return ""
	}
	return s
}

// common validates the members CreateHarness and UpdateHarness share, writing each present one into cfg.
func (c *checker) common(m map[string]json.RawMessage, cfg *HarnessConfig) {
	if v, ok := present(m, "model"); ok {
		cfg.Model = c.model("model", v)
	}
	if v, ok := present(m, "systemPrompt"); ok {
		cfg.SystemPrompt = c.systemPrompt("systemPrompt", v)
	}
	if v, ok := present(m, "tools"); ok {
		cfg.Tools = c.tools("tools", v)
	}
	if v, ok := present(m, "skills"); ok {
		cfg.Skills = c.skills("skills", v)
	}
	if v, ok := present(m, "allowedTools"); ok {
		cfg.AllowedTools = c.allowedTools("allowedTools", v)
	}
	l := c.limits(m)
	cfg.MaxIterations, cfg.MaxTokens, cfg.TimeoutSeconds = l.MaxIterations, l.MaxTokens, l.TimeoutSeconds
	if v, ok := present(m, "truncation"); ok {
		if t, ok := c.truncation("truncation", v); ok {
			cfg.Truncation = t
		}
	}
	if v, ok := present(m, "hooks"); ok {
		if l, ok := c.list("hooks", v); ok && len(l) > 0 {
			c.fail("hooks", messageHooks)
		}
	}
	if v, ok := present(m, "environment"); ok {
		cfg.Environment = c.environment("environment", v)
	}
	if v, ok := present(m, "environmentVariables"); ok {
		cfg.EnvironmentVariables, _ = c.stringMap("environmentVariables", v, MaxEnvironmentVars, environmentVariableName.MatchString, "[a-zA-Z_][a-zA-Z0-9_]{0,99}")
	}
}

func (c *checker) truncation(name string, r json.RawMessage) (Truncation, bool) {
	m, ok := c.object(name, r)
	if !ok {
		return Truncation{}, false
	}
	before := len(c.fields)
	var t Truncation
	if v, ok := present(m, "strategy"); ok {
		t.Strategy, _ = c.enum(name+".strategy", v, "sliding_window", "summarization", "none")
	} else {
		c.fail(name+".strategy", "is required")
	}
	if v, ok := present(m, "config"); ok {
		key, val, ok := c.union(name+".config", v, []string{"slidingWindow", "summarization"}, nil)
		if ok {
			n := name + ".config." + key
			cm, ok := c.object(n, val)
			if ok {
				switch key {
				case "slidingWindow":
					sw := &SlidingWindow{}
					if v, ok := present(cm, "messagesCount"); ok {
						sw.MessagesCount, _ = c.integer(n+".messagesCount", v, 1, 10000)
					}
					t.Config = &TruncationConfig{SlidingWindow: sw}
				case "summarization":
					s := &Summarization{}
					if v, ok := present(cm, "summaryRatio"); ok {
						s.SummaryRatio, _ = c.number(n+".summaryRatio", v, 0, 1)
					}
					if v, ok := present(cm, "preserveRecentMessages"); ok {
						s.PreserveRecentMessages, _ = c.integer(n+".preserveRecentMessages", v, 0, 10000)
					}
					if v, ok := present(cm, "summarizationSystemPrompt"); ok {
						if p, ok := c.str(n+".summarizationSystemPrompt", v, 1, 0); ok {
							s.SummarizationSystemPrompt = &p
						}
					}
					t.Config = &TruncationConfig{Summarization: s}
				}
			}
			if t.Strategy != "" && key != "" && ((key == "slidingWindow") != (t.Strategy == "sliding_window") || (key == "summarization") != (t.Strategy == "summarization")) {
				c.fail(name+".config."+key, "does not match strategy %s", t.Strategy)
			}
		}
	}
	return t, len(c.fields) == before
}

func (c *checker) memory(name string, r json.RawMessage) *Memory {
	key, val, ok := c.union(name, r, []string{"disabled"}, unsupportedMemory)
	if !ok || key != "disabled" {
		return nil
	}
	if !c.unit(name+".disabled", val) {
		return nil
	}
	return &Memory{Disabled: &struct{}{}}
}

func (c *checker) environment(name string, r json.RawMessage) *Environment {
	key, val, ok := c.union(name, r, []string{"agentCoreRuntimeEnvironment"}, nil)
	if !ok || key == "" {
		return nil
	}
	n := name + "." + key
	m, ok := c.object(n, val)
	if !ok {
		return nil
	}
	re := &RuntimeEnvironment{}
	if v, ok := present(m, "lifecycleConfiguration"); ok {
		if lm, ok := c.object(n+".lifecycleConfiguration", v); ok {
			lc := &Lifecycle{}
			if v, ok := present(lm, "idleRuntimeSessionTimeout"); ok {
				lc.IdleRuntimeSessionTimeout, _ = c.integer(n+".lifecycleConfiguration.idleRuntimeSessionTimeout", v, MinLifecycleSeconds, MaxLifecycleSeconds)
			}
			if v, ok := present(lm, "maxLifetime"); ok {
				lc.MaxLifetime, _ = c.integer(n+".lifecycleConfiguration.maxLifetime", v, MinLifecycleSeconds, MaxLifecycleSeconds)
			}
			re.LifecycleConfiguration = lc
		}
	}
	if v, ok := present(m, "networkConfiguration"); ok {
		if nm, ok := c.object(n+".networkConfiguration", v); ok {
			if mv, ok := present(nm, "networkMode"); ok {
				if mode, ok := c.enum(n+".networkConfiguration.networkMode", mv, "PUBLIC", "VPC"); ok {
					if mode == "VPC" {
						c.fail(n+".networkConfiguration.networkMode", messageVPC)
					} else {
						re.NetworkConfiguration = &Network{NetworkMode: mode}
					}
				}
			} else {
				c.fail(n+".networkConfiguration.networkMode", "is required")
			}
			if _, ok := present(nm, "networkModeConfig"); ok {
				c.fail(n+".networkConfiguration.networkModeConfig", messageVPC)
			}
		}
	}
	if v, ok := present(m, "filesystemConfigurations"); ok {
		if l, ok := c.list(n+".filesystemConfigurations", v); ok && len(l) > 0 {
			c.fail(n+".filesystemConfigurations", messageFilesystem)
		}
	}
	return &Environment{AgentCoreRuntimeEnvironment: re}
}

// HarnessUpdate is a validated UpdateHarness body (PATCH): each Set* flag says whether the member was present;
// a present list or map replaces the stored one. Memory: SetMemory with Memory nil clears it (`"memory":{}`).
type HarnessUpdate struct {
	ClientToken string
	set         map[string]bool
	cfg         HarnessConfig
}

// Members returns the names of the members the update changes, sorted.
func (u HarnessUpdate) Members() []string {
	var out []string
	for k := range u.set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// ParseUpdateHarness validates an UpdateHarness body (docs/agentcore.md §4.1 "UpdateHarness"): every member
// optional; `memory`, `environmentArtifact` and `authorizerConfiguration` are `{optionalValue: …}` wrappers (a
// wrapper without optionalValue clears the member). Errors: *ValidationError.
func ParseUpdateHarness(body []byte) (HarnessUpdate, error) {
	m, err := decodeBody(body)
	if err != nil {
		return HarnessUpdate{}, err
	}
	var c checker
	u := HarnessUpdate{set: map[string]bool{}}
	u.ClientToken = c.clientToken(m)
	if v, ok := present(m, "executionRoleArn"); ok {
		u.cfg.ExecutionRoleARN, _ = c.pattern("executionRoleArn", v, 1, MaxExecutionRoleARN, ExecutionRoleARNPattern, "arn:aws:iam::<account>:role/<name>")
	}
	c.common(m, &u.cfg)
	for _, k := range []string{"executionRoleArn", "model", "systemPrompt", "tools", "skills", "allowedTools", "maxIterations",
		"maxTokens", "timeoutSeconds", "truncation", "environment", "environmentVariables"} {
		if _, ok := present(m, k); ok {
			u.set[k] = true
		}
	}
	if v, ok := present(m, "memory"); ok {
		if wm, ok := c.object("memory", v); ok {
			if inner, ok := present(wm, "optionalValue"); ok {
				u.cfg.Memory = c.memory("memory.optionalValue", inner)
			}
			u.set["memory"] = true
		}
	}
	if v, ok := present(m, "environmentArtifact"); ok {
		if wm, ok := c.object("environmentArtifact", v); ok {
			if _, ok := present(wm, "optionalValue"); ok {
				c.fail("environmentArtifact.optionalValue", messageArtifact)
			}
		}
	}
	if v, ok := present(m, "authorizerConfiguration"); ok {
		if wm, ok := c.object("authorizerConfiguration", v); ok {
			if _, ok := present(wm, "optionalValue"); ok {
				c.fail("authorizerConfiguration.optionalValue", messageAuthorizer)
			}
		}
	}
	if err := c.err(); err != nil {
		return HarnessUpdate{}, err
	}
	return u, nil
}

// Apply returns old with the update's present members replaced (old is not modified); defaults are re-applied.
func (u HarnessUpdate) Apply(old HarnessConfig) HarnessConfig {
	n := old
	s := u.set
	if s["executionRoleArn"] {
		n.ExecutionRoleARN = u.cfg.ExecutionRoleARN
	}
	if s["model"] {
		n.Model = u.cfg.Model
	}
	if s["systemPrompt"] {
		n.SystemPrompt = u.cfg.SystemPrompt
	}
	if s["tools"] {
		n.Tools = restoreRedactedHeaders(u.cfg.Tools, old.Tools)
	}
	if s["skills"] {
		n.Skills = u.cfg.Skills
	}
	if s["allowedTools"] {
		n.AllowedTools = u.cfg.AllowedTools
	}
	if s["maxIterations"] {
		n.MaxIterations = u.cfg.MaxIterations
	}
	if s["maxTokens"] {
		n.MaxTokens = u.cfg.MaxTokens
	}
	if s["timeoutSeconds"] {
		n.TimeoutSeconds = u.cfg.TimeoutSeconds
	}
	if s["truncation"] {
		n.Truncation = u.cfg.Truncation
	}
	if s["environment"] {
		n.Environment = u.cfg.Environment
	}
	if s["environmentVariables"] {
		n.EnvironmentVariables = u.cfg.EnvironmentVariables
	}
	if s["memory"] {
		n.Memory = u.cfg.Memory
	}
	n.ApplyDefaults()
	return n
}

// EndpointRequest is a validated CreateHarnessEndpoint or UpdateHarnessEndpoint body. TargetVersion "" means
// the latest version (create) or unchanged (update); Description nil means none (create) or unchanged (update).
type EndpointRequest struct {
	EndpointName  string
	TargetVersion string
	Description   *string
	ClientToken   string
}

// ParseEndpointRequest validates an endpoint body; create requires endpointName (EndpointNamePattern).
// Errors: *ValidationError.
func ParseEndpointRequest(body []byte, create bool) (EndpointRequest, error) {
	m, err := decodeBody(body)
	if err != nil {
		return EndpointRequest{}, err
	}
	var c checker
	var e EndpointRequest
	if create {
		if v, ok := present(m, "endpointName"); ok {
			e.EndpointName, _ = c.pattern("endpointName", v, 1, 48, EndpointNamePattern, "[a-zA-Z][a-zA-Z0-9_]{0,47}")
		} else {
			c.fail("endpointName", "is required")
		}
		if v, ok := present(m, "tags"); ok {
			_, _ = c.stringMap("tags", v, MaxTags, tagKey.MatchString, "1 to 128 tag key characters")
		}
	}
	if v, ok := present(m, "targetVersion"); ok {
		e.TargetVersion, _ = c.pattern("targetVersion", v, 1, 10, HarnessVersionPattern, "a harness version number")
	}
	if v, ok := present(m, "description"); ok {
		if d, ok := c.str("description", v, 0, 256); ok {
			e.Description = &d
		}
	}
	e.ClientToken = c.clientToken(m)
	return e, c.err()
}

// CredentialProviderRequest is a validated Create/Update/Get/DeleteApiKeyCredentialProvider body. APIKey is ""
// when absent (it is write-only and never rendered).
type CredentialProviderRequest struct {
	Name   string
	APIKey string
	HasKey bool
}

// ParseCredentialProviderRequest validates a credential-provider body: `name` required (1–128 of
// [a-zA-Z0-9_-]); with keyRequired `apiKey` (1–65536) is required; the Go-only `apiKeySecretSource` EXTERNAL and
// `apiKeySecretConfig` (a customer's Secrets Manager secret) are rejected by name. Errors: *ValidationError.
func ParseCredentialProviderRequest(body []byte, keyAllowed, keyRequired bool) (CredentialProviderRequest, error) {
	m, err := decodeBody(body)
	if err != nil {
		return CredentialProviderRequest{}, err
	}
	var c checker
	var p CredentialProviderRequest
	if v, ok := present(m, "name"); ok {
		p.Name, _ = c.pattern("name", v, 1, 128, CredentialProviderNamePattern, "[a-zA-Z0-9_-]{1,128}")
	} else {
		c.fail("name", "is required")
	}
	if keyAllowed {
		if v, ok := present(m, "apiKey"); ok {
			p.APIKey, p.HasKey = c.str("apiKey", v, 1, MaxAPIKeyLength)
		} else if keyRequired {
			c.fail("apiKey", "is required")
		}
		if v, ok := present(m, "apiKeySecretSource"); ok {
			if s, ok := c.enum("apiKeySecretSource", v, "MANAGED", "EXTERNAL"); ok && s == "EXTERNAL" {
				c.fail("apiKeySecretSource", "EXTERNAL secrets are not supported by Baton; send apiKey")
			}
		}
		if _, ok := present(m, "apiKeySecretConfig"); ok {
			c.fail("apiKeySecretConfig", "external secrets are not supported by Baton; send apiKey")
		}
		if v, ok := present(m, "tags"); ok {
			_, _ = c.stringMap("tags", v, MaxTags, tagKey.MatchString, "1 to 128 tag key characters")
		}
	}
	return p, c.err()
}

// Fingerprint identifies a request for clientToken idempotency: the SHA-256 hex of the operation, its path
// parameters and its body members other than clientToken, in canonical JSON (member order and whitespace do not
// matter). A body that is not a JSON object is fingerprinted as its bytes.
func Fingerprint(operation string, pathParams []string, body []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", operation, strings.Join(pathParams, "\x00"))
	var v map[string]any
	if len(strings.TrimSpace(string(body))) > 0 && json.Unmarshal(body, &v) == nil && v != nil {
		delete(v, "clientToken")
		b, _ := json.Marshal(v) // maps marshal with sorted keys
		h.Write(b)
	} else {
		h.Write(body)
	}
	return hex.EncodeToString(h.Sum(nil))
}
