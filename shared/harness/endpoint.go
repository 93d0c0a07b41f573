package harness

import "github.com/baton-run/baton/shared/agent"

// Endpoint is where a provider sends one Session's model requests, and with which credentials.
type Endpoint struct {
	// Model is x_baton.model_provider.model, else the Agent's model ("" = none).
	Model string
	// BaseURL is the Session's base_url, else the runtime's ("" = the vendor's default).
	BaseURL string
	// APIKey is the Session's api_key; else the runtime's key, but only for the runtime's own endpoint.
	APIKey string
	// CallerChosen is true when the Session names an endpoint other than the runtime's: it must be dialled through
	// netguard and must not receive any credential from the runtime's environment.
	CallerChosen bool
}

// ResolveEndpoint picks a Session's endpoint for a provider whose runtime defaults are runtimeBaseURL and
// runtimeKey (from the runtime's deployment configuration). The runtime's key goes only to the runtime's own
// endpoint: a Session that names another base_url gets only the api_key it configures itself, so a project key
// holder cannot collect the deployment's provider credentials (docs/decisions.md §1: credentials are write-only and
// come from configuration).
func ResolveEndpoint(cfg agent.Config, runtimeBaseURL, runtimeKey string) Endpoint {
	ep := Endpoint{Model: cfg.Model, BaseURL: runtimeBaseURL, APIKey: runtimeKey}
	if cfg.XBaton == nil || cfg.XBaton.ModelProvider == nil {
		return ep
	}
	mp := cfg.XBaton.ModelProvider
	if mp.Model != "" {
		ep.Model = mp.Model
	}
	if mp.BaseURL != "" && mp.BaseURL != runtimeBaseURL {
		ep.BaseURL, ep.APIKey, ep.CallerChosen = mp.BaseURL, "", true
	}
	if mp.APIKey != "" {
		ep.APIKey = mp.APIKey
	}
	return ep
}
