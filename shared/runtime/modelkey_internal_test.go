package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/engine"
)

// vaultEngine is an Engine that also resolves token-vault keys from a map (project#name → key).
type vaultEngine struct {
	Engine
	keys map[string]string
}

func (v vaultEngine) ResolveAPIKey(_ context.Context, projectID, name string) (string, error) {
	if k, ok := v.keys[projectID+"#"+name]; ok {
		return k, nil
	}
	return "", engine.ErrNotFound
}

type plainEngine struct{ Engine }

func TestResolveModelKeyReplacesTheReferenceInACopy(t *testing.T) {
	t.Parallel()
	const arn = "arn:aws:bedrock-agentcore:us-east-1:123456789012:token-vault/default/apikeycredentialprovider/openai"
	orig := agent.Config{XBaton: &agent.Extension{ModelProvider: &agent.ModelProvider{Protocol: "openai_chat", APIKey: "${" + arn + "}"}}}
	r := &Runtime{eng: vaultEngine{keys: map[string]string{"p1#openai": "sk-secret"}}}
	got, err := r.resolveModelKey(context.Background(), "p1", orig)
	if err != nil {
		t.Fatal(err)
	}
	if got.XBaton.ModelProvider.APIKey != "sk-secret" {
		t.Errorf("api key = %q", got.XBaton.ModelProvider.APIKey)
	}
	if orig.XBaton.ModelProvider.APIKey != "${"+arn+"}" {
		t.Errorf("the turn's configuration was changed: %q", orig.XBaton.ModelProvider.APIKey)
	}
	if _, err := r.resolveModelKey(context.Background(), "p2", orig); !errors.Is(err, engine.ErrNotFound) || strings.Contains(err.Error(), "sk-secret") {
		t.Errorf("another project's key: %v", err)
	}
	if _, err := (&Runtime{eng: plainEngine{}}).resolveModelKey(context.Background(), "p1", orig); err == nil {
		t.Error("an engine without a vault must fail the reference")
	}
	plain := agent.Config{XBaton: &agent.Extension{ModelProvider: &agent.ModelProvider{Protocol: "openai_chat", APIKey: "sk-inline"}}}
	if got, err := r.resolveModelKey(context.Background(), "p1", plain); err != nil || got.XBaton.ModelProvider.APIKey != "sk-inline" {
		t.Errorf("a key without a reference: %v %q", err, got.XBaton.ModelProvider.APIKey)
	}
}

func TestProjectVaultResolvesOnlyInItsProject(t *testing.T) {
	t.Parallel()
	const arn = "arn:aws:bedrock-agentcore:us-east-1:123456789012:token-vault/default/apikeycredentialprovider/mcp"
	kr := vaultEngine{keys: map[string]string{"p1#mcp": "k1"}}
	if got, err := (projectVault{kr: kr, projectID: "p1"}).ResolveAPIKey(context.Background(), arn); err != nil || got != "k1" {
		t.Errorf("own project: %q %v", got, err)
	}
	if _, err := (projectVault{kr: kr, projectID: "p2"}).ResolveAPIKey(context.Background(), arn); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("another project: %v", err)
	}
	if _, err := (projectVault{kr: kr, projectID: "p1"}).ResolveAPIKey(context.Background(), "arn:aws:iam::1:role/x"); err == nil {
		t.Error("a non-provider ARN must fail")
	}
}
