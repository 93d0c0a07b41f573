package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/baton-run/baton/shared/agentcore"
	"github.com/baton-run/baton/shared/agentcore/apierror"
	"github.com/baton-run/baton/shared/engine"
)

// Token vault handlers (docs/agentcore.md §6): the API-key credential-provider operations of the control plane,
// all `POST /identities/<Operation>` with a JSON body; timestamps are epoch seconds. The API key is write-only.

// credentialProviderView is the answer of Create/Get/UpdateApiKeyCredentialProvider.
type credentialProviderView struct {
	APIKeySecretARN       secretARNView `json:"apiKeySecretArn"`
	Name                  string        `json:"name"`
	CredentialProviderARN string        `json:"credentialProviderArn"`
	APIKeySecretSource    string        `json:"apiKeySecretSource"`
	CreatedTime           *float64      `json:"createdTime,omitempty"`
	LastUpdatedTime       *float64      `json:"lastUpdatedTime,omitempty"`
}

type secretARNView struct {
	SecretARN string `json:"secretArn"`
}

// providerSummaryView is one `credentialProviders` entry of ListApiKeyCredentialProviders.
type providerSummaryView struct {
	Name                  string  `json:"name"`
	CredentialProviderARN string  `json:"credentialProviderArn"`
	CreatedTime           float64 `json:"createdTime"`
	LastUpdatedTime       float64 `json:"lastUpdatedTime"`
}

func (a *api) providerARN(name string) string {
	id := a.eng.AgentCoreIdentity()
	return agentcore.CredentialProviderARN(id.Region, id.AccountID, name)
}

// providerView renders a provider; times are included unless create (the Create answer has none). The secret ARN
// names where AWS would keep the key; Baton keeps it sealed in its table (docs/agentcore.md §6).
func (a *api) providerView(p engine.CredentialProvider, withTimes bool) credentialProviderView {
	id := a.eng.AgentCoreIdentity()
	v := credentialProviderView{
		APIKeySecretARN:       secretARNView{SecretARN: "arn:aws:secretsmanager:" + id.Region + ":" + id.AccountID + ":secret:bedrock-agentcore-identity!default/apikey/" + p.Name},
		Name:                  p.Name,
		CredentialProviderARN: a.providerARN(p.Name),
		APIKeySecretSource:    "MANAGED",
	}
	if withTimes {
		c, u := epochSeconds(p.CreatedAt), epochSeconds(p.UpdatedAt)
		v.CreatedTime, v.LastUpdatedTime = &c, &u
	}
	return v
}

func providerErr(name string, err error) error {
	if errors.Is(err, engine.ErrNotFound) {
		return acNotFoundError("Credential provider", name)
	}
	if errors.Is(err, engine.ErrAlreadyExists) {
		return apierror.New(apierror.Conflict, "A credential provider named "+name+" already exists.")
	}
	return err
}

func (a *api) providerRequest(w http.ResponseWriter, r *http.Request, keyAllowed, keyRequired bool) (agentcore.CredentialProviderRequest, bool) {
	body, err := agentCoreBody(r)
	if err == nil {
		var req agentcore.CredentialProviderRequest
		if req, err = agentcore.ParseCredentialProviderRequest(body, keyAllowed, keyRequired); err == nil {
			return req, true
		}
	}
	a.writeAgentCoreError(w, r, err)
	return agentcore.CredentialProviderRequest{}, false
}

// createCredentialProvider: POST /identities/CreateApiKeyCredentialProvider {name, apiKey} → 201.
func (a *api) createCredentialProvider(w http.ResponseWriter, r *http.Request) {
	req, ok := a.providerRequest(w, r, true, true)
	if !ok {
		return
	}
	p, err := a.eng.CreateCredentialProvider(r.Context(), project(r), req.Name, req.APIKey)
	if err != nil {
		a.writeAgentCoreError(w, r, providerErr(req.Name, err))
		return
	}
	a.writeAgentCoreJSON(w, r, http.StatusCreated, a.providerView(p, false))
}

// getCredentialProvider: POST /identities/GetApiKeyCredentialProvider {name} → 200 (never the key).
func (a *api) getCredentialProvider(w http.ResponseWriter, r *http.Request) {
	req, ok := a.providerRequest(w, r, false, false)
	if !ok {
		return
	}
	p, err := a.eng.GetCredentialProvider(r.Context(), project(r), req.Name)
	if err != nil {
		a.writeAgentCoreError(w, r, providerErr(req.Name, err))
		return
	}
	a.writeAgentCoreJSON(w, r, http.StatusOK, a.providerView(p, true))
}

// updateCredentialProvider: POST /identities/UpdateApiKeyCredentialProvider {name, apiKey} → 200.
func (a *api) updateCredentialProvider(w http.ResponseWriter, r *http.Request) {
	req, ok := a.providerRequest(w, r, true, false)
	if !ok {
		return
	}
	p, err := a.eng.UpdateCredentialProvider(r.Context(), project(r), req.Name, req.APIKey, req.HasKey)
	if err != nil {
		a.writeAgentCoreError(w, r, providerErr(req.Name, err))
		return
	}
	a.writeAgentCoreJSON(w, r, http.StatusOK, a.providerView(p, true))
}

// deleteCredentialProvider: POST /identities/DeleteApiKeyCredentialProvider {name} → 204, no body.
func (a *api) deleteCredentialProvider(w http.ResponseWriter, r *http.Request) {
	req, ok := a.providerRequest(w, r, false, false)
	if !ok {
		return
	}
	if err := a.eng.DeleteCredentialProvider(r.Context(), project(r), req.Name); err != nil {
		a.writeAgentCoreError(w, r, providerErr(req.Name, err))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// listCredentialProviders: POST /identities/ListApiKeyCredentialProviders {maxResults, nextToken} → 200
// {"credentialProviders":[…], "nextToken"?}, by name.
func (a *api) listCredentialProviders(w http.ResponseWriter, r *http.Request) {
	body, err := agentCoreBody(r)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	var q struct {
		MaxResults *int    `json:"maxResults"`
		NextToken  *string `json:"nextToken"`
	}
	if json.Unmarshal(body, &q) != nil {
		a.writeAgentCoreError(w, r, agentcore.Invalid("maxResults", "must be an integer between 1 and 100"))
		return
	}
	limit := defaultMaxResults
	if q.MaxResults != nil {
		if *q.MaxResults < 1 || *q.MaxResults > 100 {
			a.writeAgentCoreError(w, r, agentcore.Invalid("maxResults", "must be an integer between 1 and 100"))
			return
		}
		limit = *q.MaxResults
	}
	after := ""
	if q.NextToken != nil {
		if after, err = decodeToken(*q.NextToken); err != nil || after == "" {
			a.writeAgentCoreError(w, r, agentcore.Invalid("nextToken", "is not a token returned by a previous call"))
			return
		}
	}
	list, next, err := a.eng.ListCredentialProviders(r.Context(), project(r), after, limit)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	out := make([]providerSummaryView, 0, len(list))
	for _, p := range list {
		out = append(out, providerSummaryView{Name: p.Name, CredentialProviderARN: a.providerARN(p.Name),
			CreatedTime: epochSeconds(p.CreatedAt), LastUpdatedTime: epochSeconds(p.UpdatedAt)})
	}
	a.writeAgentCoreJSON(w, r, http.StatusOK, listBody("credentialProviders", out, next))
}
