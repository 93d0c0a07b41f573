package engine

import (
	"context"
	"errors"
	"fmt"
)

// CredentialProvider is an API-key credential provider of a project's token vault (docs/agentcore.md §6): Name
// is unique per project; SealedKey the API key sealed with the engine's key; the key itself is write-only (never
// rendered, logged or stored in a Session snapshot). Times are Unix milliseconds.
type CredentialProvider struct {
	ProjectID string
	Name      string
	SealedKey []byte
	CreatedAt int64
	UpdatedAt int64
	Revision  int64
}

func providerAAD(projectID, name string) string { return "apikeyprovider#" + projectID + "#" + name }

// CreateCredentialProvider stores an API key under name. Errors: ErrAlreadyExists for a taken name; ErrNoSealKey.
func (e *Engine) CreateCredentialProvider(ctx context.Context, projectID, name, apiKey string) (CredentialProvider, error) {
	s, err := e.agentCoreStore()
	if err != nil {
		return CredentialProvider{}, err
	}
	sealed, err := e.sealer.seal(apiKey, providerAAD(projectID, name))
	if err != nil {
		return CredentialProvider{}, err
	}
	now := e.nowMillis()
	p := CredentialProvider{ProjectID: projectID, Name: name, SealedKey: sealed, CreatedAt: now, UpdatedAt: now, Revision: 1}
	if err := s.PutCredentialProvider(ctx, p); err != nil {
		if errors.Is(err, ErrConflict) {
			return CredentialProvider{}, fmt.Errorf("credential provider %s: %w", name, ErrAlreadyExists)
		}
		return CredentialProvider{}, err
	}
	return p, nil
}

// GetCredentialProvider returns a provider of the project; ErrNotFound for a missing or foreign one.
func (e *Engine) GetCredentialProvider(ctx context.Context, projectID, name string) (CredentialProvider, error) {
	s, err := e.agentCoreStore()
	if err != nil {
		return CredentialProvider{}, err
	}
	return s.GetCredentialProvider(ctx, projectID, name)
}

// ListCredentialProviders lists the project's providers by name after `after`; next "" on the last page.
func (e *Engine) ListCredentialProviders(ctx context.Context, projectID, after string, limit int) ([]CredentialProvider, string, error) {
	s, err := e.agentCoreStore()
	if err != nil {
		return nil, "", err
	}
	return s.ListCredentialProviders(ctx, projectID, after, limit)
}

// UpdateCredentialProvider replaces the API key (hasKey) or only touches UpdatedAt. Errors: ErrNotFound; ErrBusy
// when concurrent updates keep winning.
func (e *Engine) UpdateCredentialProvider(ctx context.Context, projectID, name, apiKey string, hasKey bool) (CredentialProvider, error) {
	s, err := e.agentCoreStore()
	if err != nil {
		return CredentialProvider{}, err
	}
	for attempt := 0; attempt < maxWriteAttempts; attempt++ {
		old, err := s.GetCredentialProvider(ctx, projectID, name)
		if err != nil {
			return CredentialProvider{}, err
		}
		p := old
		if hasKey {
			if p.SealedKey, err = e.sealer.seal(apiKey, providerAAD(projectID, name)); err != nil {
				return CredentialProvider{}, err
			}
		}
		p.UpdatedAt, p.Revision = e.nowMillis(), old.Revision+1
		err = s.PutCredentialProvider(ctx, p)
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, ErrConflict) {
			return CredentialProvider{}, err
		}
	}
	return CredentialProvider{}, fmt.Errorf("credential provider %s: %w", name, ErrBusy)
}

// DeleteCredentialProvider deletes a provider; ErrNotFound for a missing or foreign one.
func (e *Engine) DeleteCredentialProvider(ctx context.Context, projectID, name string) error {
	s, err := e.agentCoreStore()
	if err != nil {
		return err
	}
	return s.DeleteCredentialProvider(ctx, projectID, name)
}

// ResolveAPIKey returns the API key stored under provider `name` of the project, for the runtime at invocation
// time (`${arn:…:token-vault/default/apikeycredentialprovider/<name>}` references and `apiKeyArn`;
// docs/agentcore.md §6). The value is a secret: never store it in a snapshot, log or echo it. Errors: ErrNotFound
// for a missing or foreign provider; ErrNoSealKey.
func (e *Engine) ResolveAPIKey(ctx context.Context, projectID, name string) (string, error) {
	p, err := e.GetCredentialProvider(ctx, projectID, name)
	if err != nil {
		return "", err
	}
	return e.sealer.open(p.SealedKey, providerAAD(projectID, name))
}
