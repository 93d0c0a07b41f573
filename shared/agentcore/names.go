package agentcore

import (
	"fmt"
	"regexp"
	"strings"
)

// Documented name, id and ARN patterns (docs/agentcore.md §4.1). Every pattern is anchored.
var (
	// HarnessNamePattern: `harnessName`, 1–40 characters.
	HarnessNamePattern = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_]{0,39}$`)
	// HarnessIDPattern: `harnessId` = `<harnessName>-<10 letters or digits>`.
	HarnessIDPattern = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_]{0,39}-[a-zA-Z0-9]{10}$`)
	// HarnessARNPattern: `arn:<partition>:bedrock-agentcore:<region>:<12-digit account>:harness/<harnessId>`.
	HarnessARNPattern = regexp.MustCompile(`^arn:([^:]+)?:bedrock-agentcore:[a-z0-9-]+:[0-9]{12}:harness/([a-zA-Z][a-zA-Z0-9_]{0,39}-[a-zA-Z0-9]{10})$`)
	// EndpointNamePattern: `endpointName` and the InvokeHarness `qualifier`, 1–48 characters.
	EndpointNamePattern = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_]{0,47}$`)
	// ClientTokenPattern: `clientToken`, 33–256 characters (the length is checked apart).
	ClientTokenPattern = regexp.MustCompile(`^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,256}$`)
	// ExecutionRoleARNPattern: `executionRoleArn`, an IAM role ARN.
	ExecutionRoleARNPattern = regexp.MustCompile(`^arn:aws(-[^:]+)?:iam::([0-9]{12})?:role/.+$`)
	// ToolNamePattern: a tool `name` and a `toolUseId`, 1–64 characters.
	ToolNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	// HarnessVersionPattern: `harnessVersion` / `targetVersion`, a positive decimal.
	HarnessVersionPattern = regexp.MustCompile(`^[1-9][0-9]{0,9}$`)
	// CredentialProviderNamePattern: an API-key credential provider `name`, 1–128 characters.
	CredentialProviderNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)
	// GatewayARNPattern: `gatewayArn` of an agentcore_gateway tool.
	GatewayARNPattern = regexp.MustCompile(`^arn:aws(-[^:]+)?:bedrock-agentcore:[a-z0-9-]+:[0-9]{12}:gateway/[a-zA-Z0-9._-]{1,100}$`)
	// BrowserARNPattern and CodeInterpreterARNPattern: custom resources of the two built-in tool types.
	BrowserARNPattern         = regexp.MustCompile(`^arn:aws(-[^:]+)?:bedrock-agentcore:[a-z0-9-]+:([0-9]{12}|aws):browser(-custom)?/[a-zA-Z0-9._-]{1,100}$`)
	CodeInterpreterARNPattern = regexp.MustCompile(`^arn:aws(-[^:]+)?:bedrock-agentcore:[a-z0-9-]+:([0-9]{12}|aws):code-interpreter(-custom)?/[a-zA-Z0-9._-]{1,100}$`)
	// credentialProviderARNPattern: an API-key credential provider ARN
	// (`arn:aws:bedrock-agentcore:<region>:<account>:token-vault/<vault>/apikeycredentialprovider/<name>`; the
	// `acps` service name of older documents is accepted too).
	credentialProviderARNPattern = regexp.MustCompile(`^arn:aws(-[^:]+)?:(bedrock-agentcore|acps):([a-z0-9-]+):([0-9]{12}):token-vault/([a-zA-Z0-9_-]{1,64})/apikeycredentialprovider/([a-zA-Z0-9_-]{1,128})$`)
	// oauthProviderARNPattern: an OAuth2 credential provider ARN (agentcore_gateway outboundAuth.oauth).
	oauthProviderARNPattern = regexp.MustCompile(`^arn:aws(-[^:]+)?:(bedrock-agentcore|acps):[a-z0-9-]+:[0-9]{12}:token-vault/[a-zA-Z0-9_-]{1,64}/oauth2credentialprovider/[a-zA-Z0-9_-]{1,128}$`)
	// vaultRefPattern finds `${arn:…}` references inside a header value.
	vaultRefPattern = regexp.MustCompile(`\$\{(arn:[^}]*)\}`)
)

// Length bounds of documented members (docs/agentcore.md §4.1).
const (
	MinClientTokenLength = 33
	MaxClientTokenLength = 256
	MaxExecutionRoleARN  = 2048
	MaxDescriptionLength = 4096 // inlineFunction.description and endpoint description
	MaxAllowedToolLength = 64
	MaxAPIKeyLength      = 65536
)

// DefaultEndpointName is the implicit endpoint of every harness: it always targets the latest version, and an
// InvokeHarness without `qualifier` uses it.
const DefaultEndpointName = "DEFAULT"

// HarnessARN returns `arn:aws:bedrock-agentcore:<region>:<account>:harness/<harnessID>`.
func HarnessARN(region, account, harnessID string) string {
	return fmt.Sprintf("arn:aws:bedrock-agentcore:%s:%s:harness/%s", region, account, harnessID)
}

// HarnessEndpointARN returns the harness ARN + `/endpoint/<name>`.
func HarnessEndpointARN(region, account, harnessID, endpoint string) string {
	return HarnessARN(region, account, harnessID) + "/endpoint/" + endpoint
}

// HarnessIDFromARN returns the harness id of a harness ARN; ok is false when arn does not match
// HarnessARNPattern.
func HarnessIDFromARN(arn string) (string, bool) {
	m := HarnessARNPattern.FindStringSubmatch(arn)
	if m == nil {
		return "", false
	}
	return m[2], true
}

// CredentialProviderARN returns
// `arn:aws:bedrock-agentcore:<region>:<account>:token-vault/default/apikeycredentialprovider/<name>`.
func CredentialProviderARN(region, account, name string) string {
	return fmt.Sprintf("arn:aws:bedrock-agentcore:%s:%s:token-vault/default/apikeycredentialprovider/%s", region, account, name)
}

// CredentialProviderRef is a parsed API-key credential provider ARN.
type CredentialProviderRef struct {
	Region  string
	Account string
	Vault   string
	Name    string
}

// ParseCredentialProviderARN parses an API-key credential provider ARN; ok is false for anything else.
func ParseCredentialProviderARN(arn string) (CredentialProviderRef, bool) {
	m := credentialProviderARNPattern.FindStringSubmatch(arn)
	if m == nil {
		return CredentialProviderRef{}, false
	}
	return CredentialProviderRef{Region: m[3], Account: m[4], Vault: m[5], Name: m[6]}, true
}

// VaultReferences returns the provider ARNs referenced as `${arn:…}` in s, in order (duplicates kept).
func VaultReferences(s string) []string {
	var out []string
	for _, m := range vaultRefPattern.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// ExpandVaultReferences replaces every `${arn:…}` reference in s by resolve(arn) — the whole value
// (`${arn:…}`) or a part of it (`Bearer ${arn:…}`). The first resolve error is returned and s is not expanded.
// The result holds secrets: callers never store, log or echo it (docs/agentcore.md §6).
func ExpandVaultReferences(s string, resolve func(arn string) (string, error)) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var firstErr error
	out := vaultRefPattern.ReplaceAllStringFunc(s, func(ref string) string {
		if firstErr != nil {
			return ""
		}
		v, err := resolve(ref[2 : len(ref)-1])
		if err != nil {
			firstErr = err
			return ""
		}
		return v
	})
	if firstErr != nil {
		return "", firstErr
	}
	return out, nil
}

// ValidClientToken reports whether t is a valid `clientToken` (33–256 characters of ClientTokenPattern).
func ValidClientToken(t string) bool {
	return len(t) >= MinClientTokenLength && len(t) <= MaxClientTokenLength && ClientTokenPattern.MatchString(t)
}
