package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/baton-run/baton/shared/agentcore"
	"github.com/baton-run/baton/shared/engine"
)

// Control-plane handlers (docs/agentcore.md §4): decode → agentcore validation → one engine call → response.

// harnessView is the wire `Harness` (docs/agentcore.md §4.3); every member the SDK marks required is present.
type harnessView struct {
	HarnessID            string                         `json:"harnessId"`
	HarnessName          string                         `json:"harnessName"`
	ARN                  string                         `json:"arn"`
	Status               string                         `json:"status"`
	HarnessVersion       string                         `json:"harnessVersion"`
	ExecutionRoleARN     string                         `json:"executionRoleArn"`
	CreatedAt            string                         `json:"createdAt"`
	UpdatedAt            string                         `json:"updatedAt"`
	Model                agentcore.ModelConfig          `json:"model"`
	SystemPrompt         []agentcore.SystemContentBlock `json:"systemPrompt"`
	Tools                []agentcore.Tool               `json:"tools"`
	Skills               []agentcore.Skill              `json:"skills"`
	AllowedTools         []string                       `json:"allowedTools"`
	Truncation           agentcore.Truncation           `json:"truncation"`
	Environment          environmentView                `json:"environment"`
	Memory               *agentcore.Memory              `json:"memory,omitempty"`
	EnvironmentVariables map[string]string              `json:"environmentVariables,omitempty"`
	MaxIterations        *int32                         `json:"maxIterations,omitempty"`
	MaxTokens            *int32                         `json:"maxTokens,omitempty"`
	TimeoutSeconds       *int32                         `json:"timeoutSeconds,omitempty"`
}

// environmentView is the response form of `environment`: the runtime Baton runs the harness in.
type environmentView struct {
	AgentCoreRuntimeEnvironment runtimeEnvironmentView `json:"agentCoreRuntimeEnvironment"`
}

type runtimeEnvironmentView struct {
	AgentRuntimeARN        string              `json:"agentRuntimeArn"`
	AgentRuntimeName       string              `json:"agentRuntimeName"`
	AgentRuntimeID         string              `json:"agentRuntimeId"`
	LifecycleConfiguration agentcore.Lifecycle `json:"lifecycleConfiguration"`
	NetworkConfiguration   agentcore.Network   `json:"networkConfiguration"`
}

// Runtime lifecycle defaults rendered when the harness sets none (seconds).
const (
	defaultIdleRuntimeSessionTimeout = 900
	defaultMaxLifetime               = 28800
)

func (a *api) harnessView(h engine.Harness) (harnessView, error) {
	cfg, err := agentcore.DecodeConfig(h.Config)
	if err != nil {
		return harnessView{}, err
	}
	cfg.ApplyDefaults()
	id := a.eng.AgentCoreIdentity()
	idle, life := int32(defaultIdleRuntimeSessionTimeout), int32(defaultMaxLifetime)
	lc := agentcore.Lifecycle{IdleRuntimeSessionTimeout: &idle, MaxLifetime: &life}
	nw := agentcore.Network{NetworkMode: "PUBLIC"}
	if e := cfg.Environment; e != nil && e.AgentCoreRuntimeEnvironment != nil {
		if l := e.AgentCoreRuntimeEnvironment.LifecycleConfiguration; l != nil {
			if l.IdleRuntimeSessionTimeout != nil {
				lc.IdleRuntimeSessionTimeout = l.IdleRuntimeSessionTimeout
			}
			if l.MaxLifetime != nil {
				lc.MaxLifetime = l.MaxLifetime
			}
		}
	}
	return harnessView{
		HarnessID: h.ID, HarnessName: h.Name, ARN: h.ARN, Status: h.Status, HarnessVersion: engine.FormatVersion(h.Version),
		ExecutionRoleARN: cfg.ExecutionRoleARN, CreatedAt: rfc3339(h.CreatedAt), UpdatedAt: rfc3339(h.UpdatedAt),
		Model: cfg.Model, SystemPrompt: cfg.SystemPrompt, Tools: agentcore.RedactHeaders(cfg.Tools), Skills: cfg.Skills, AllowedTools: cfg.AllowedTools,
		Truncation: cfg.Truncation, Memory: cfg.Memory, EnvironmentVariables: cfg.EnvironmentVariables,
		MaxIterations: cfg.MaxIterations, MaxTokens: cfg.MaxTokens, TimeoutSeconds: cfg.TimeoutSeconds,
		Environment: environmentView{AgentCoreRuntimeEnvironment: runtimeEnvironmentView{
			AgentRuntimeARN:  "arn:aws:bedrock-agentcore:" + id.Region + ":" + id.AccountID + ":runtime/" + h.ID,
			AgentRuntimeName: "harness_" + h.Name, AgentRuntimeID: h.ID, LifecycleConfiguration: lc, NetworkConfiguration: nw,
		}},
	}, nil
}

func (a *api) writeHarness(w http.ResponseWriter, r *http.Request, status int, h engine.Harness) {
	v, err := a.harnessView(h)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	a.writeAgentCoreJSON(w, r, status, map[string]any{"harness": v})
}

// harnessSummaryView is the wire `HarnessSummary` / `HarnessVersionSummary`.
type harnessSummaryView struct {
	HarnessID      string `json:"harnessId"`
	HarnessName    string `json:"harnessName"`
	ARN            string `json:"arn"`
	Status         string `json:"status"`
	HarnessVersion string `json:"harnessVersion"`
	CreatedAt      string `json:"createdAt"`
	UpdatedAt      string `json:"updatedAt"`
}

// endpointView is the wire `HarnessEndpoint`.
type endpointView struct {
	HarnessID     string  `json:"harnessId"`
	HarnessName   string  `json:"harnessName"`
	EndpointName  string  `json:"endpointName"`
	ARN           string  `json:"arn"`
	Status        string  `json:"status"`
	CreatedAt     string  `json:"createdAt"`
	UpdatedAt     string  `json:"updatedAt"`
	LiveVersion   string  `json:"liveVersion"`
	TargetVersion string  `json:"targetVersion"`
	Description   *string `json:"description,omitempty"`
}

// harnessNameOf returns the name part of a harness id (`<name>-<10 characters>`).
func harnessNameOf(id string) string {
	if len(id) > 11 {
		return id[:len(id)-11]
	}
	return id
}

func (a *api) endpointView(e engine.HarnessEndpoint) endpointView {
	id := a.eng.AgentCoreIdentity()
	return endpointView{HarnessID: e.HarnessID, HarnessName: harnessNameOf(e.HarnessID), EndpointName: e.Name,
		ARN: agentcore.HarnessEndpointARN(id.Region, id.AccountID, e.HarnessID, e.Name), Status: e.Status,
		CreatedAt: rfc3339(e.CreatedAt), UpdatedAt: rfc3339(e.UpdatedAt), LiveVersion: engine.FormatVersion(e.LiveVersion),
		TargetVersion: engine.FormatVersion(e.TargetVersion), Description: e.Description}
}

// harnessID validates the {harnessId} path parameter.
func harnessID(r *http.Request) (string, error) {
	id := r.PathValue("harnessId")
	if !agentcore.HarnessIDPattern.MatchString(id) {
		return "", agentcore.Invalid("harnessId", "must match [a-zA-Z][a-zA-Z0-9_]{0,39}-[a-zA-Z0-9]{10}")
	}
	return id, nil
}

// harnessErr names the harness in a not-found error (identical for a missing and a foreign harness).
func harnessErr(id string, err error) error {
	if errors.Is(err, engine.ErrNotFound) {
		return acNotFoundError("Harness", id)
	}
	return err
}

// createHarness: POST /harnesses → 201 {"harness": Harness}.
func (a *api) createHarness(w http.ResponseWriter, r *http.Request) {
	body, err := agentCoreBody(r)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	req, err := agentcore.ParseCreateHarness(body)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	cfg, err := json.Marshal(req.Config)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	h, err := a.eng.CreateHarness(r.Context(), project(r), req.HarnessName, cfg,
		engine.Request{ClientToken: req.ClientToken, Fingerprint: agentcore.Fingerprint("CreateHarness", nil, body)})
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	a.writeHarness(w, r, http.StatusCreated, h)
}

// getHarness: GET /harnesses/{harnessId}[?harnessVersion=N] → 200 {"harness": Harness}.
func (a *api) getHarness(w http.ResponseWriter, r *http.Request) {
	id, err := harnessID(r)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	var version int64
	if v := r.URL.Query().Get("harnessVersion"); v != "" {
		if !agentcore.HarnessVersionPattern.MatchString(v) {
			a.writeAgentCoreError(w, r, agentcore.Invalid("harnessVersion", "must be a harness version number"))
			return
		}
		version, _ = strconv.ParseInt(v, 10, 64)
	}
	h, err := a.eng.GetHarness(r.Context(), project(r), id, version)
	if err != nil {
		a.writeAgentCoreError(w, r, harnessErr(id, err))
		return
	}
	a.writeHarness(w, r, http.StatusOK, h)
}

// listHarnesses: GET /harnesses?maxResults&nextToken → 200 {"harnesses":[HarnessSummary], "nextToken"}.
func (a *api) listHarnesses(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, err := parseMaxResults(q.Get("maxResults"))
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	after, err := decodeToken(q.Get("nextToken"))
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	list, next, err := a.eng.ListHarnesses(r.Context(), project(r), after, limit)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	out := make([]harnessSummaryView, 0, len(list))
	for _, h := range list {
		out = append(out, harnessSummaryView{HarnessID: h.ID, HarnessName: h.Name, ARN: h.ARN, Status: h.Status,
			HarnessVersion: engine.FormatVersion(h.LatestVersion), CreatedAt: rfc3339(h.CreatedAt), UpdatedAt: rfc3339(h.UpdatedAt)})
	}
	a.writeAgentCoreJSON(w, r, http.StatusOK, listBody("harnesses", out, next))
}

// updateHarness: PATCH /harnesses/{harnessId} → 200 {"harness": Harness} of the new version.
func (a *api) updateHarness(w http.ResponseWriter, r *http.Request) {
	id, err := harnessID(r)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	body, err := agentCoreBody(r)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	u, err := agentcore.ParseUpdateHarness(body)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	h, err := a.eng.UpdateHarness(r.Context(), project(r), id,
		engine.Request{ClientToken: u.ClientToken, Fingerprint: agentcore.Fingerprint("UpdateHarness", []string{id}, body)},
		func(old json.RawMessage) (json.RawMessage, error) {
			cfg, err := agentcore.DecodeConfig(old)
			if err != nil {
				return nil, err
			}
			return json.Marshal(u.Apply(cfg))
		})
	if err != nil {
		a.writeAgentCoreError(w, r, harnessErr(id, err))
		return
	}
	a.writeHarness(w, r, http.StatusOK, h)
}

// queryClientToken validates the clientToken query parameter of the Delete operations ("" when absent).
func queryClientToken(r *http.Request) (string, error) {
	t := r.URL.Query().Get("clientToken")
	if t != "" && !agentcore.ValidClientToken(t) {
		return "", agentcore.Invalid("clientToken", "must be 33 to 256 characters of [a-zA-Z0-9](-*[a-zA-Z0-9])*")
	}
	return t, nil
}

// deleteHarness: DELETE /harnesses/{harnessId}?clientToken&deleteManagedMemory → 200 {"harness": Harness} with
// status DELETING.
func (a *api) deleteHarness(w http.ResponseWriter, r *http.Request) {
	id, err := harnessID(r)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	token, err := queryClientToken(r)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	if v := r.URL.Query().Get("deleteManagedMemory"); v != "" && v != "true" && v != "false" {
		a.writeAgentCoreError(w, r, agentcore.Invalid("deleteManagedMemory", "must be true or false"))
		return
	}
	h, err := a.eng.DeleteHarness(r.Context(), project(r), id, engine.Request{ClientToken: token, Fingerprint: agentcore.Fingerprint("DeleteHarness", []string{id}, nil)})
	if err != nil {
		a.writeAgentCoreError(w, r, harnessErr(id, err))
		return
	}
	a.writeHarness(w, r, http.StatusOK, h)
}

// listHarnessVersions: GET /harnesses/{harnessId}/versions → 200 {"harnessVersions":[HarnessVersionSummary],
// "nextToken"}, oldest first.
func (a *api) listHarnessVersions(w http.ResponseWriter, r *http.Request) {
	id, err := harnessID(r)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	q := r.URL.Query()
	limit, err := parseMaxResults(q.Get("maxResults"))
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	tok, err := decodeToken(q.Get("nextToken"))
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	var after int64
	if tok != "" {
		if after, err = strconv.ParseInt(tok, 10, 64); err != nil {
			a.writeAgentCoreError(w, r, agentcore.Invalid("nextToken", "is not a token returned by a previous call"))
			return
		}
	}
	h, err := a.eng.GetHarness(r.Context(), project(r), id, 0)
	if err != nil {
		a.writeAgentCoreError(w, r, harnessErr(id, err))
		return
	}
	list, next, err := a.eng.ListHarnessVersions(r.Context(), project(r), id, after, limit)
	if err != nil {
		a.writeAgentCoreError(w, r, harnessErr(id, err))
		return
	}
	out := make([]harnessSummaryView, 0, len(list))
	for _, v := range list {
		out = append(out, harnessSummaryView{HarnessID: h.ID, HarnessName: h.Name, ARN: h.ARN, Status: engine.HarnessReady,
			HarnessVersion: engine.FormatVersion(v.Version), CreatedAt: rfc3339(v.CreatedAt), UpdatedAt: rfc3339(v.CreatedAt)})
	}
	nextTok := ""
	if next > 0 {
		nextTok = strconv.FormatInt(next, 10)
	}
	a.writeAgentCoreJSON(w, r, http.StatusOK, listBody("harnessVersions", out, nextTok))
}

// endpointName validates the {endpointName} path parameter.
func endpointName(r *http.Request) (string, error) {
	n := r.PathValue("endpointName")
	if !agentcore.EndpointNamePattern.MatchString(n) {
		return "", agentcore.Invalid("endpointName", "must match [a-zA-Z][a-zA-Z0-9_]{0,47}")
	}
	return n, nil
}

func endpointErr(harness, name string, err error) error {
	if errors.Is(err, engine.ErrNotFound) {
		return acNotFoundError("Harness endpoint", harness+"/"+name)
	}
	return err
}

func (a *api) writeEndpoint(w http.ResponseWriter, r *http.Request, status int, e engine.HarnessEndpoint) {
	a.writeAgentCoreJSON(w, r, status, map[string]any{"endpoint": a.endpointView(e)})
}

func versionNumber(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// createHarnessEndpoint: POST /harnesses/{harnessId}/endpoints → 201 {"endpoint": HarnessEndpoint}.
func (a *api) createHarnessEndpoint(w http.ResponseWriter, r *http.Request) {
	id, err := harnessID(r)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	body, err := agentCoreBody(r)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	req, err := agentcore.ParseEndpointRequest(body, true)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	e, err := a.eng.CreateHarnessEndpoint(r.Context(), project(r), id, req.EndpointName,
		engine.EndpointChange{TargetVersion: versionNumber(req.TargetVersion), Description: req.Description},
		engine.Request{ClientToken: req.ClientToken, Fingerprint: agentcore.Fingerprint("CreateHarnessEndpoint", []string{id}, body)})
	if err != nil {
		a.writeAgentCoreError(w, r, harnessErr(id, err))
		return
	}
	a.writeEndpoint(w, r, http.StatusCreated, e)
}

// getHarnessEndpoint: GET /harnesses/{harnessId}/endpoints/{endpointName} → 200 {"endpoint"}.
func (a *api) getHarnessEndpoint(w http.ResponseWriter, r *http.Request) {
	id, err := harnessID(r)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	name, err := endpointName(r)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	e, err := a.eng.GetHarnessEndpoint(r.Context(), project(r), id, name)
	if err != nil {
		a.writeAgentCoreError(w, r, endpointErr(id, name, err))
		return
	}
	a.writeEndpoint(w, r, http.StatusOK, e)
}

// updateHarnessEndpoint: PATCH /harnesses/{harnessId}/endpoints/{endpointName} → 200 {"endpoint"}.
func (a *api) updateHarnessEndpoint(w http.ResponseWriter, r *http.Request) {
	id, err := harnessID(r)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	name, err := endpointName(r)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	body, err := agentCoreBody(r)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	req, err := agentcore.ParseEndpointRequest(body, false)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	e, err := a.eng.UpdateHarnessEndpoint(r.Context(), project(r), id, name,
		engine.EndpointChange{TargetVersion: versionNumber(req.TargetVersion), Description: req.Description},
		engine.Request{ClientToken: req.ClientToken, Fingerprint: agentcore.Fingerprint("UpdateHarnessEndpoint", []string{id, name}, body)})
	if err != nil {
		a.writeAgentCoreError(w, r, endpointErr(id, name, err))
		return
	}
	a.writeEndpoint(w, r, http.StatusOK, e)
}

// deleteHarnessEndpoint: DELETE /harnesses/{harnessId}/endpoints/{endpointName}?clientToken → 200 {"endpoint"}
// with status DELETING.
func (a *api) deleteHarnessEndpoint(w http.ResponseWriter, r *http.Request) {
	id, err := harnessID(r)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	name, err := endpointName(r)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	token, err := queryClientToken(r)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	e, err := a.eng.DeleteHarnessEndpoint(r.Context(), project(r), id, name, engine.Request{ClientToken: token, Fingerprint: agentcore.Fingerprint("DeleteHarnessEndpoint", []string{id, name}, nil)})
	if err != nil {
		a.writeAgentCoreError(w, r, endpointErr(id, name, err))
		return
	}
	a.writeEndpoint(w, r, http.StatusOK, e)
}

// listHarnessEndpoints: GET /harnesses/{harnessId}/endpoints → 200 {"endpoints":[HarnessEndpoint], "nextToken"},
// DEFAULT first, then by name.
func (a *api) listHarnessEndpoints(w http.ResponseWriter, r *http.Request) {
	id, err := harnessID(r)
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	q := r.URL.Query()
	limit, err := parseMaxResults(q.Get("maxResults"))
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	after, err := decodeToken(q.Get("nextToken"))
	if err != nil {
		a.writeAgentCoreError(w, r, err)
		return
	}
	list, next, err := a.eng.ListHarnessEndpoints(r.Context(), project(r), id, after, limit)
	if err != nil {
		a.writeAgentCoreError(w, r, harnessErr(id, err))
		return
	}
	out := make([]endpointView, 0, len(list))
	for _, e := range list {
		out = append(out, a.endpointView(e))
	}
	a.writeAgentCoreJSON(w, r, http.StatusOK, listBody("endpoints", out, next))
}
