package httpapi

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"

	"github.com/baton-run/baton/shared/engine"
)

// Admin API (docs/decisions.md §4): `Authorization: Bearer <admin key>`, no OpenAI-Beta.

var projectIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// API keys the admin API accepts: 8–256 printable ASCII bytes without spaces.
const (
	minAPIKeyBytes = 8
	maxAPIKeyBytes = 256
)

func (a *api) checkAdmin(w http.ResponseWriter, r *http.Request) bool {
	key, ok := bearer(r)
	if ok && subtle.ConstantTimeCompare([]byte(key), []byte(a.opts.AdminKey)) == 1 {
		return true
	}
	w.Header().Set("WWW-Authenticate", "Bearer")
	a.writeAPIError(w, r, http.StatusUnauthorized, "", "A valid admin key is required.", "")
	return false
}

// projectKey is the body of POST /admin/v1/projects/{project_id}/keys. Key is present only when the server
// generated it: it is shown this once and stored hashed.
type projectKey struct {
	Object    string `json:"object"`
	ProjectID string `json:"project_id"`
	Key       string `json:"key,omitempty"`
}

// provisionKey: POST /admin/v1/projects/{project_id}/keys with `{"key":"…"}` binds that key to the project
// (idempotent); without `key` it generates one (`sk-baton-<48 hex>`) and returns it once. → 201.
func (a *api) provisionKey(w http.ResponseWriter, r *http.Request) {
	projectID := r.PathValue("project_id")
	if !projectIDPattern.MatchString(projectID) {
		a.writeAPIError(w, r, http.StatusBadRequest, engine.CodeInvalidRequestError, "project_id must be 1 to 64 letters, digits, '_' or '-'.", "project_id")
		return
	}
	body, err := readJSON(r, a.opts.MaxBodyBytes)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	var members map[string]json.RawMessage
	_ = json.Unmarshal(body, &members)
	for k := range members {
		if k != "key" {
			a.writeAPIError(w, r, http.StatusBadRequest, engine.CodeInvalidRequestError, "Unknown parameter: '"+k+"'.", k)
			return
		}
	}
	out := projectKey{Object: "admin.project_key", ProjectID: projectID}
	key := ""
	if raw, ok := members["key"]; ok && string(raw) != "null" {
		if json.Unmarshal(raw, &key) != nil || !validAPIKey(key) {
			a.writeAPIError(w, r, http.StatusBadRequest, engine.CodeInvalidRequestError,
				"key must be 8 to 256 printable ASCII characters without spaces.", "key")
			return
		}
	} else {
		var b [24]byte
		_, _ = rand.Read(b[:])
		key = "sk-baton-" + hex.EncodeToString(b[:])
		out.Key = key
	}
	if err := a.eng.ProvisionKey(r.Context(), projectID, key); err != nil {
		a.writeError(w, r, err)
		return
	}
	a.writeJSON(w, r, http.StatusCreated, out)
}

func validAPIKey(k string) bool {
	if len(k) < minAPIKeyBytes || len(k) > maxAPIKeyBytes {
		return false
	}
	return !strings.ContainsFunc(k, func(c rune) bool { return c <= ' ' || c > '~' })
}

// runtimeView is one live runtime in GET /admin/v1/runtimes.
type runtimeView struct {
	ID           string   `json:"id"`
	Object       string   `json:"object"`
	Kind         string   `json:"kind"`
	Capabilities []string `json:"capabilities"`
	Version      string   `json:"version"`
	HeartbeatAt  int64    `json:"heartbeat_at"`
}

// listRuntimes: GET /admin/v1/runtimes → {"object":"list","data":[{id, object, kind, capabilities, version,
// heartbeat_at}]} of the runtimes whose registration has not expired.
func (a *api) listRuntimes(w http.ResponseWriter, r *http.Request) {
	live, err := a.eng.LiveRuntimes(r.Context())
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	data := make([]runtimeView, 0, len(live))
	for _, rt := range live {
		caps := rt.Capabilities
		if caps == nil {
			caps = []string{}
		}
		data = append(data, runtimeView{ID: rt.ID, Object: "admin.runtime", Kind: rt.Kind, Capabilities: caps, Version: rt.Version, HeartbeatAt: rt.HeartbeatAt})
	}
	a.writeJSON(w, r, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// accessKeyView is the body of POST /admin/v1/projects/{project_id}/access_keys: the AgentCore SigV4 credentials of
// a project (docs/agentcore.md §2). SecretAccessKey is present only when the server generated it: shown this once,
// stored sealed.
type accessKeyView struct {
	Object          string `json:"object"`
	ProjectID       string `json:"project_id"`
	AccessKeyID     string `json:"access_key_id"`
	SecretAccessKey string `json:"secret_access_key,omitempty"`
}

// provisionAccessKey: POST /admin/v1/projects/{project_id}/access_keys with `{}` generates an access key id and
// secret (the secret is returned once); with `{"access_key_id":…, "secret_access_key":…}` binds that pair
// (idempotent for the same project; an id of another project is 409). → 201.
func (a *api) provisionAccessKey(w http.ResponseWriter, r *http.Request) {
	projectID := r.PathValue("project_id")
	if !projectIDPattern.MatchString(projectID) {
		a.writeAPIError(w, r, http.StatusBadRequest, engine.CodeInvalidRequestError, "project_id must be 1 to 64 letters, digits, '_' or '-'.", "project_id")
		return
	}
	body, err := readJSON(r, a.opts.MaxBodyBytes)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	var members map[string]json.RawMessage
	_ = json.Unmarshal(body, &members)
	var id, secret string
	for k, raw := range members {
		var dst *string
		switch k {
		case "access_key_id":
			dst = &id
		case "secret_access_key":
			dst = &secret
		default:
			a.writeAPIError(w, r, http.StatusBadRequest, engine.CodeInvalidRequestError, "Unknown parameter: '"+k+"'.", k)
			return
		}
		if string(raw) != "null" && json.Unmarshal(raw, dst) != nil {
			a.writeAPIError(w, r, http.StatusBadRequest, engine.CodeInvalidRequestError, k+" must be a string.", k)
			return
		}
	}
	if (id == "") != (secret == "") {
		a.writeAPIError(w, r, http.StatusBadRequest, engine.CodeInvalidRequestError, "access_key_id and secret_access_key are given together or not at all.", "")
		return
	}
	generated := secret == ""
	id, secret, err = a.eng.CreateAccessKey(r.Context(), projectID, id, secret)
	if err != nil {
		if errors.Is(err, engine.ErrConflict) {
			err = &engine.Error{Status: http.StatusConflict, Code: engine.CodeConflictError, Message: "This access key id belongs to another project.", NoRetry: true}
		}
		a.writeError(w, r, err)
		return
	}
	out := accessKeyView{Object: "admin.access_key", ProjectID: projectID, AccessKeyID: id}
	if generated {
		out.SecretAccessKey = secret
	}
	a.writeJSON(w, r, http.StatusCreated, out)
}
