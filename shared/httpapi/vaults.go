package httpapi

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"net/url"

	"github.com/baton-run/baton/shared/engine"
)

// Minimal Vaults routes (docs/agents-api.md §3.5, bearer authentication):
//
//	POST /v1/vaults                          {name?, metadata?}                      → 201 vault
//	GET  /v1/vaults                          → {object:"list", data:[vault…], has_more:false}
//	GET  /v1/vaults/{vault_id}               → vault
//	POST /v1/vaults/{vault_id}/credentials   {name?, auth:{type:"static_bearer", token, mcp_server_url?}} → 201 credential
//	GET  /v1/vaults/{vault_id}/credentials   → list of credentials
//
// The token is write-only: no response carries it. mcp_server_url, when set, must be an absolute https URL (http is
// accepted for loopback hosts, for local stacks and tests).
func (a *api) vaultRoutes() {
	a.route(a.agents, "/v1/vaults", methods{"GET": a.listVaults, "POST": a.createVault})
	a.route(a.agents, "/v1/vaults/{vault_id}", methods{"GET": a.getVault})
	a.route(a.agents, "/v1/vaults/{vault_id}/credentials", methods{"GET": a.listCredentials, "POST": a.createCredential})
}

func invalidVaultField(param, message string) *engine.Error {
	return &engine.Error{Status: http.StatusBadRequest, Code: engine.CodeInvalidRequestError, Message: message, Param: param}
}

// decodeStrict decodes a JSON object rejecting unknown members.
func decodeStrict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return invalidVaultField("", "Invalid request body: "+err.Error())
	}
	return nil
}

func (a *api) createVault(w http.ResponseWriter, r *http.Request) {
	body, err := readJSON(r, a.opts.MaxBodyBytes)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	var in struct {
		Name     *string           `json:"name"`
		Metadata map[string]string `json:"metadata"`
	}
	if err := decodeStrict(body, &in); err != nil {
		a.writeError(w, r, err)
		return
	}
	v, err := a.eng.CreateVault(r.Context(), project(r), in.Name, in.Metadata)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusCreated, v)
}

func (a *api) listVaults(w http.ResponseWriter, r *http.Request) {
	vs, err := a.eng.ListVaults(r.Context(), project(r))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusOK, newListPage(vs, func(v engine.Vault) string { return v.ID }, false))
}

func (a *api) getVault(w http.ResponseWriter, r *http.Request) {
	v, err := a.eng.GetVault(r.Context(), project(r), r.PathValue("vault_id"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusOK, v)
}

func (a *api) createCredential(w http.ResponseWriter, r *http.Request) {
	body, err := readJSON(r, a.opts.MaxBodyBytes)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	var in struct {
		Name *string `json:"name"`
		Auth *struct {
			Type         string  `json:"type"`
			Token        string  `json:"token"`
			MCPServerURL *string `json:"mcp_server_url"`
		} `json:"auth"`
	}
	if err := decodeStrict(body, &in); err != nil {
		a.writeError(w, r, err)
		return
	}
	switch {
	case in.Auth == nil:
		a.writeError(w, r, invalidVaultField("auth", "Missing required parameter: 'auth'."))
		return
	case in.Auth.Type != engine.CredentialStaticBearer:
		a.writeError(w, r, invalidVaultField("auth.type", "Invalid 'auth.type': only 'static_bearer' is supported."))
		return
	}
	nc := engine.NewCredential{Name: in.Name, Token: in.Auth.Token}
	if in.Auth.MCPServerURL != nil {
		if !credentialURL(*in.Auth.MCPServerURL) {
			a.writeError(w, r, invalidVaultField("auth.mcp_server_url", "Invalid 'auth.mcp_server_url': expected an absolute https URL without credentials or fragment."))
			return
		}
		nc.MCPServerURL = *in.Auth.MCPServerURL
	}
	c, err := a.eng.CreateCredential(r.Context(), project(r), r.PathValue("vault_id"), nc)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusCreated, c)
}

func (a *api) listCredentials(w http.ResponseWriter, r *http.Request) {
	cs, err := a.eng.ListCredentials(r.Context(), project(r), r.PathValue("vault_id"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusOK, newListPage(cs, func(c engine.Credential) string { return c.ID }, false))
}

// credentialURL: an absolute https URL with a host, without userinfo or fragment (a query is kept byte for byte);
// http only for loopback hosts.
func credentialURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.User != nil || u.Fragment != "" || u.RawFragment != "" {
		return false
	}
	switch u.Scheme {
	case "https":
		return true
	case "http":
		host := u.Hostname()
		ip := net.ParseIP(host)
		return host == "localhost" || (ip != nil && ip.IsLoopback())
	}
	return false
}
