package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"

	"github.com/baton-run/baton/shared/agent"
)

// Vault is a project's container of credentials (minimal Agents API Vaults, docs/agents-api.md §3.5: bearer
// authentication uses a static credential of an attached Vault). Rendered as {id, object:"vault", name, metadata,
// created_at}; CreatedAt is Unix seconds; ProjectID is never rendered.
type Vault struct {
	ID        string
	ProjectID string
	Name      *string
	Metadata  map[string]string
	CreatedAt int64
}

// MarshalJSON renders the vault resource.
func (v Vault) MarshalJSON() ([]byte, error) {
	md := v.Metadata
	if md == nil {
		md = map[string]string{}
	}
	return json.Marshal(map[string]any{"id": v.ID, "object": "vault", "name": v.Name, "metadata": md, "created_at": v.CreatedAt})
}

// CredentialStaticBearer is the only credential auth type: a static bearer token for an MCP server.
const CredentialStaticBearer = "static_bearer"

// Credential is a credential of a vault. Token is write-only: stored, given to the runtime in the Session snapshot
// of a Session that selects it, never rendered. MCPServerURL "" means the credential is selected only by an
// explicit credential_id. Rendered as {id, object:"vault.credential", vault_id, name, auth:{type, mcp_server_url},
// created_at}.
type Credential struct {
	ID           string
	VaultID      string
	ProjectID    string
	Name         *string
	AuthType     string
	Token        string
	MCPServerURL string
	CreatedAt    int64
}

// MarshalJSON renders the credential without its token.
func (c Credential) MarshalJSON() ([]byte, error) {
	var u *string
	if c.MCPServerURL != "" {
		u = &c.MCPServerURL
	}
	return json.Marshal(map[string]any{"id": c.ID, "object": "vault.credential", "vault_id": c.VaultID, "name": c.Name,
		"auth": map[string]any{"type": c.AuthType, "mcp_server_url": u}, "created_at": c.CreatedAt})
}

// VaultStore is the durable state of vaults. store/dynamo implements it next to Store; an engine whose store does
// not answers the vault operations with 503 (kept apart from Store so that stores without vaults still compile).
// Reads of a missing record return ErrNotFound (wrapped); puts are conditional on the record not existing.
type VaultStore interface {
	PutVault(ctx context.Context, v Vault) error
	GetVault(ctx context.Context, vaultID string) (Vault, error)
	ListVaults(ctx context.Context, projectID string) ([]Vault, error)
	PutCredential(ctx context.Context, c Credential) error
	ListCredentials(ctx context.Context, vaultID string) ([]Credential, error)
}

func (e *Engine) vaultStore() (VaultStore, error) {
	vs, ok := e.store.(VaultStore)
	if !ok {
		return nil, &Error{Status: http.StatusServiceUnavailable, Code: "credential_storage_unavailable", Message: "Vault storage is not available."}
	}
	return vs, nil
}

// CreateVault creates a vault of the project.
func (e *Engine) CreateVault(ctx context.Context, projectID string, name *string, metadata map[string]string) (Vault, error) {
	vs, err := e.vaultStore()
	if err != nil {
		return Vault{}, err
	}
	v := Vault{ID: e.newID("vault"), ProjectID: projectID, Name: name, Metadata: metadata, CreatedAt: e.now()}
	if err := vs.PutVault(ctx, v); err != nil {
		return Vault{}, err
	}
	return v, nil
}

// GetVault returns a vault of the project; ErrNotFound for a missing or foreign one.
func (e *Engine) GetVault(ctx context.Context, projectID, vaultID string) (Vault, error) {
	vs, err := e.vaultStore()
	if err != nil {
		return Vault{}, err
	}
	v, err := vs.GetVault(ctx, vaultID)
	if err != nil {
		return Vault{}, err
	}
	if v.ProjectID != projectID {
		return Vault{}, fmt.Errorf("vault %s: %w", vaultID, ErrNotFound)
	}
	return v, nil
}

// ListVaults lists the project's vaults by creation.
func (e *Engine) ListVaults(ctx context.Context, projectID string) ([]Vault, error) {
	vs, err := e.vaultStore()
	if err != nil {
		return nil, err
	}
	return vs.ListVaults(ctx, projectID)
}

// NewCredential is a validated credential creation request.
type NewCredential struct {
	Name         *string
	Token        string
	MCPServerURL string
}

// b64token is RFC 6750's token68 syntax, required of static bearer tokens (docs/agents-api.md §3.5).
var b64token = regexp.MustCompile(`^[A-Za-z0-9\-._~+/]+=*$`)

// CreateCredential adds a static_bearer credential to a vault of the project. Errors: ErrNotFound for a missing or
// foreign vault; 400 invalid_request_error when the token is not an RFC 6750 b64token.
func (e *Engine) CreateCredential(ctx context.Context, projectID, vaultID string, nc NewCredential) (Credential, error) {
	v, err := e.GetVault(ctx, projectID, vaultID)
	if err != nil {
		return Credential{}, err
	}
	if !b64token.MatchString(nc.Token) {
		return Credential{}, invalid("auth.token", "Invalid 'auth.token': expected an RFC 6750 bearer token.")
	}
	vs, _ := e.vaultStore()
	c := Credential{ID: e.newID("cred"), VaultID: v.ID, ProjectID: projectID, Name: nc.Name, AuthType: CredentialStaticBearer,
		Token: nc.Token, MCPServerURL: nc.MCPServerURL, CreatedAt: e.now()}
	if err := vs.PutCredential(ctx, c); err != nil {
		return Credential{}, err
	}
	return c, nil
}

// ListCredentials lists a vault's credentials (tokens are never rendered). ErrNotFound for a missing or foreign
// vault.
func (e *Engine) ListCredentials(ctx context.Context, projectID, vaultID string) ([]Credential, error) {
	v, err := e.GetVault(ctx, projectID, vaultID)
	if err != nil {
		return nil, err
	}
	vs, _ := e.vaultStore()
	return vs.ListCredentials(ctx, v.ID)
}

// ResolveMCPCredentials selects the Vault credential of each HTTP MCP declaration of a new Session's snapshot
// (docs/agents-api.md §3.5 "MCP bearer auth via Vaults") and freezes its token in
// snap.Config.MCPBearerTokens (never rendered). An explicit credential_id must be a credential of an attached
// vault whose mcp_server_url (when set) equals the declaration's server_url; without one, the only attached
// credential whose mcp_server_url equals server_url is selected and written into the declaration's credential_id;
// none → anonymous. Errors (nothing written): an unknown or foreign vault id → ErrNotFound (404); credential_id
// without vaults, not found, or for another URL → 400 invalid_request_error; several matching credentials → 409
// conflict_error.
func (e *Engine) ResolveMCPCredentials(ctx context.Context, projectID string, vaultIDs []string, snap *agent.Snapshot) error {
	servers := snap.Config.MCPServers()
	if len(vaultIDs) == 0 {
		for _, s := range servers {
			if s.CredentialID != nil && *s.CredentialID != "" { // "" is Stage B's to reject (not a credential reference)
				return invalid("", "MCP credential_id requires an attached vault")
			}
		}
		return nil
	}
	var creds []Credential
	for _, id := range vaultIDs {
		cs, err := e.ListCredentials(ctx, projectID, id)
		if err != nil {
			return err
		}
		creds = append(creds, cs...)
	}
	if len(servers) == 0 {
		return nil
	}
	tokens := map[string]string{}
	for i, raw := range snap.Config.Tools {
		var s agent.MCPServer
		var head struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(raw, &head) != nil || head.Type != "mcp" || json.Unmarshal(raw, &s) != nil || s.Transport.Type != "http" {
			continue
		}
		if s.CredentialID != nil && *s.CredentialID == "" {
			continue // not a credential reference: Stage B rejects it (docs/agents-api.md §3.5)
		}
		url := s.Transport.ServerURL
		if s.CredentialID != nil {
			var found *Credential
			for j := range creds {
				if creds[j].ID == *s.CredentialID {
					found = &creds[j]
				}
			}
			if found == nil {
				return invalid("", "MCP credential_id %s was not found in an attached vault", *s.CredentialID)
			}
			if found.MCPServerURL != "" && found.MCPServerURL != url {
				return invalid("", "MCP credential_id %s does not match server_url %s", *s.CredentialID, url)
			}
			tokens[s.ServerLabel] = found.Token
			continue
		}
		var match []Credential
		for _, c := range creds {
			if c.MCPServerURL == url {
				match = append(match, c)
			}
		}
		switch len(match) {
		case 0:
		case 1:
			tokens[s.ServerLabel] = match[0].Token
			decl := map[string]json.RawMessage{}
			if err := json.Unmarshal(raw, &decl); err != nil {
				return fmt.Errorf("mcp declaration %s: %w", s.ServerLabel, err)
			}
			decl["credential_id"], _ = json.Marshal(match[0].ID)
			b, err := json.Marshal(decl)
			if err != nil {
				return fmt.Errorf("mcp declaration %s: %w", s.ServerLabel, err)
			}
			snap.Config.Tools[i] = b
		default:
			return conflict(CodeConflictError, fmt.Sprintf("multiple attached vault credentials match MCP server_url %s; specify credential_id", url))
		}
	}
	if len(tokens) > 0 {
		snap.Config.MCPBearerTokens = tokens
	}
	return nil
}
