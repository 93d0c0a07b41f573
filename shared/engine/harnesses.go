package engine

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// AgentCore-side sentinel errors (docs/agentcore.md §5). The AgentCore API maps each to its wire error once.
var (
	// ErrAlreadyExists: a harness name, endpoint name or credential provider name is taken (ConflictException).
	ErrAlreadyExists = errors.New("already exists")
	// ErrIdempotencyMismatch: a clientToken reused with different parameters (ValidationException, reason
	// IdempotentParameterMismatchException).
	ErrIdempotencyMismatch = errors.New("client token reused with different parameters")
	// ErrBusy: the resource kept changing under a conditional write (ConflictException); the caller may retry.
	ErrBusy = errors.New("concurrent modification")
)

// MemberError is a request member the engine finds invalid against stored state (a targetVersion that does not
// exist, the DEFAULT endpoint changed): ValidationException with fieldList [{Member, Message}].
type MemberError struct {
	Member  string
	Message string
}

func (e *MemberError) Error() string { return e.Member + ": " + e.Message }

// Harness statuses (docs/agentcore.md §4.1 "Lifecycle"): creation and updates are synchronous, so a harness is
// READY as soon as the call returns; DeleteHarness answers DELETING and the harness is gone afterwards.
const (
	HarnessReady    = "READY"
	HarnessDeleting = "DELETING"
)

// DefaultHarnessEndpoint is the implicit endpoint that always targets the latest version.
const DefaultHarnessEndpoint = "DEFAULT"

// Harness is an AgentCore harness of a project (Baton's saved configuration on the AgentCore side): ID is
// `<Name>-<10 letters or digits>`, ARN `arn:aws:bedrock-agentcore:<region>:<account>:harness/<ID>`. Version is the
// version Config belongs to (the latest for every read but GetHarness with a version). Config is the validated
// AgentCore configuration of that version as JSON, opaque to the engine (shared/agentcore owns its shape).
// Times are Unix milliseconds. Revision counts writes of the harness record (optimistic concurrency).
type Harness struct {
	ProjectID     string          `json:"project_id"`
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	ARN           string          `json:"arn"`
	Status        string          `json:"status"`
	Version       int64           `json:"version"`
	LatestVersion int64           `json:"latest_version"`
	Config        json.RawMessage `json:"config"`
	CreatedAt     int64           `json:"created_at"`
	UpdatedAt     int64           `json:"updated_at"`
	Revision      int64           `json:"revision"`
}

// HarnessVersion is one immutable version of a harness configuration (Unix milliseconds).
type HarnessVersion struct {
	ProjectID string          `json:"project_id"`
	HarnessID string          `json:"harness_id"`
	Version   int64           `json:"version"`
	Config    json.RawMessage `json:"config"`
	CreatedAt int64           `json:"created_at"`
}

// HarnessEndpoint is a named pointer to a harness version. TargetVersion is what it should serve and
// LiveVersion what it serves (equal: updates are synchronous). Times are Unix milliseconds.
type HarnessEndpoint struct {
	ProjectID     string  `json:"project_id"`
	HarnessID     string  `json:"harness_id"`
	Name          string  `json:"name"`
	Status        string  `json:"status"`
	TargetVersion int64   `json:"target_version"`
	LiveVersion   int64   `json:"live_version"`
	Description   *string `json:"description,omitempty"`
	CreatedAt     int64   `json:"created_at"`
	UpdatedAt     int64   `json:"updated_at"`
	Revision      int64   `json:"revision"`
}

// AgentCoreStore is the durable state of the AgentCore front door. store/dynamo implements it next to Store; an
// engine whose store does not answers these operations with an internal error. Reads of a missing record return
// ErrNotFound (wrapped); writes are conditional and return ErrConflict (wrapped) when a condition fails. Every
// write that carries an *Idempotency also creates that record in the same transaction.
type AgentCoreStore interface {
	// CreateHarness creates the harness record, its name claim and version 1 (none may exist).
	CreateHarness(ctx context.Context, h Harness, v HarnessVersion, idem *Idempotency) error
	GetHarness(ctx context.Context, projectID, harnessID string) (Harness, error)
	// ListHarnesses lists the project's harnesses by id after `after` ("" = from the start); next is "" on the
	// last page.
	ListHarnesses(ctx context.Context, projectID, after string, limit int) (list []Harness, next string, err error)
	// UpdateHarness replaces the harness record if its stored Revision is h.Revision-1 and creates version v.
	UpdateHarness(ctx context.Context, h Harness, v HarnessVersion, idem *Idempotency) error
	// DeleteHarness deletes the harness record (if its Revision is h.Revision), its name claim, then its versions
	// and endpoints.
	DeleteHarness(ctx context.Context, h Harness, idem *Idempotency) error
	GetHarnessVersion(ctx context.Context, projectID, harnessID string, version int64) (HarnessVersion, error)
	ListHarnessVersions(ctx context.Context, projectID, harnessID string, after int64, limit int) ([]HarnessVersion, int64, error)
	// PutHarnessEndpoint creates (e.Revision 1: must not exist) or replaces (stored Revision e.Revision-1) an
	// endpoint, on condition that its harness record exists.
	PutHarnessEndpoint(ctx context.Context, e HarnessEndpoint, idem *Idempotency) error
	GetHarnessEndpoint(ctx context.Context, projectID, harnessID, name string) (HarnessEndpoint, error)
	ListHarnessEndpoints(ctx context.Context, projectID, harnessID, after string, limit int) ([]HarnessEndpoint, string, error)
	// DeleteHarnessEndpoint deletes an endpoint whose stored Revision is e.Revision.
	DeleteHarnessEndpoint(ctx context.Context, e HarnessEndpoint, idem *Idempotency) error

	// PutAccessKey binds an access key id to a project with its sealed secret, unless the id is bound to another
	// project (ErrConflict).
	PutAccessKey(ctx context.Context, k AccessKey) error
	GetAccessKey(ctx context.Context, id string) (AccessKey, error)

	// PutCredentialProvider creates (p.Revision 1: must not exist) or replaces (stored Revision p.Revision-1) an
	// API-key credential provider.
	PutCredentialProvider(ctx context.Context, p CredentialProvider) error
	GetCredentialProvider(ctx context.Context, projectID, name string) (CredentialProvider, error)
	ListCredentialProviders(ctx context.Context, projectID, after string, limit int) ([]CredentialProvider, string, error)
	DeleteCredentialProvider(ctx context.Context, projectID, name string) error
}

func (e *Engine) agentCoreStore() (AgentCoreStore, error) {
	s, ok := e.store.(AgentCoreStore)
	if !ok {
		return nil, errors.New("the store does not implement AgentCoreStore")
	}
	return s, nil
}

// AgentCoreIdentity is the region and account that AgentCore ARNs carry (deployment configuration).
type AgentCoreIdentity struct {
	Region    string
	AccountID string
}

func (e *Engine) harnessARN(id string) string {
	return fmt.Sprintf("arn:aws:bedrock-agentcore:%s:%s:harness/%s", e.agentCore.Region, e.agentCore.AccountID, id)
}

// AgentCoreIdentity returns the configured region and account of AgentCore ARNs.
func (e *Engine) AgentCoreIdentity() AgentCoreIdentity { return e.agentCore }

func (e *Engine) nowMillis() int64 { return e.clock().UnixMilli() }

const idAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// harnessSuffix returns 10 random letters and digits.
func harnessSuffix() string {
	var b [10]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = idAlphabet[int(b[i])%len(idAlphabet)]
	}
	return string(b[:])
}

// Request is a mutating AgentCore request's idempotency identity: ClientToken "" means none; Fingerprint
// identifies the request's parameters (shared/agentcore Fingerprint).
type Request struct {
	ClientToken string
	Fingerprint string
}

func idempotencyKey(projectID, op, token string) string {
	return "agentcore#" + projectID + "#" + op + "#" + token
}

// replay returns the stored answer of an earlier request with the same client token: found=false when there is
// none, ErrIdempotencyMismatch when its parameters differed.
func replay[T any](ctx context.Context, e *Engine, projectID, op string, req Request) (T, bool, error) {
	var zero T
	if req.ClientToken == "" {
		return zero, false, nil
	}
	rec, err := e.store.GetIdempotency(ctx, idempotencyKey(projectID, op, req.ClientToken))
	if err != nil {
		if isNotFound(err) {
			return zero, false, nil
		}
		return zero, false, err
	}
	if rec.RequestHash != req.Fingerprint {
		return zero, false, ErrIdempotencyMismatch
	}
	var out T
	if err := json.Unmarshal([]byte(rec.Response), &out); err != nil {
		return zero, false, fmt.Errorf("decode stored answer of %s: %w", op, err)
	}
	return out, true, nil
}

func (e *Engine) idempotency(projectID, op string, req Request, answer any) (*Idempotency, error) {
	if req.ClientToken == "" {
		return nil, nil
	}
	b, err := json.Marshal(answer)
	if err != nil {
		return nil, err
	}
	return &Idempotency{Key: idempotencyKey(projectID, op, req.ClientToken), RequestHash: req.Fingerprint, Response: string(b), CreatedAt: e.now()}, nil
}

// afterConflict resolves a lost conditional write: a concurrent request with the same client token wins and its
// answer is returned; otherwise conflictErr.
func afterConflict[T any](ctx context.Context, e *Engine, projectID, op string, req Request, conflictErr error) (T, error) {
	out, found, err := replay[T](ctx, e, projectID, op, req)
	if err != nil {
		return out, err
	}
	if found {
		return out, nil
	}
	return out, conflictErr
}

// CreateHarness creates harness `name` of the project with version 1 = config (docs/agentcore.md §4.1).
// Idempotent by req.ClientToken: the same token and fingerprint return the stored answer; a different fingerprint
// is ErrIdempotencyMismatch. Errors: ErrAlreadyExists when the project has a harness of that name. Nothing is
// written on error.
func (e *Engine) CreateHarness(ctx context.Context, projectID, name string, config json.RawMessage, req Request) (Harness, error) {
	const op = "CreateHarness"
	s, err := e.agentCoreStore()
	if err != nil {
		return Harness{}, err
	}
	if h, found, err := replay[Harness](ctx, e, projectID, op, req); err != nil || found {
		return h, err
	}
	now := e.nowMillis()
	id := name + "-" + harnessSuffix()
	h := Harness{ProjectID: projectID, ID: id, Name: name, ARN: e.harnessARN(id), Status: HarnessReady, Version: 1, LatestVersion: 1,
		Config: config, CreatedAt: now, UpdatedAt: now, Revision: 1}
	v := HarnessVersion{ProjectID: projectID, HarnessID: id, Version: 1, Config: config, CreatedAt: now}
	idem, err := e.idempotency(projectID, op, req, h)
	if err != nil {
		return Harness{}, err
	}
	if err := s.CreateHarness(ctx, h, v, idem); err != nil {
		if errors.Is(err, ErrConflict) {
			return afterConflict[Harness](ctx, e, projectID, op, req, fmt.Errorf("harness name %s: %w", name, ErrAlreadyExists))
		}
		return Harness{}, err
	}
	return h, nil
}

// GetHarness returns a harness of the project with the configuration of version (0 = the latest). ErrNotFound for
// a missing or foreign harness or version.
func (e *Engine) GetHarness(ctx context.Context, projectID, harnessID string, version int64) (Harness, error) {
	s, err := e.agentCoreStore()
	if err != nil {
		return Harness{}, err
	}
	h, err := s.GetHarness(ctx, projectID, harnessID)
	if err != nil {
		return Harness{}, err
	}
	if version == 0 || version == h.LatestVersion {
		return h, nil
	}
	v, err := s.GetHarnessVersion(ctx, projectID, harnessID, version)
	if err != nil {
		return Harness{}, err
	}
	h.Version, h.Config = v.Version, v.Config
	return h, nil
}

// ListHarnesses lists the project's harnesses (latest versions) by id; next "" on the last page.
func (e *Engine) ListHarnesses(ctx context.Context, projectID, after string, limit int) ([]Harness, string, error) {
	s, err := e.agentCoreStore()
	if err != nil {
		return nil, "", err
	}
	return s.ListHarnesses(ctx, projectID, after, limit)
}

// maxWriteAttempts bounds the optimistic-concurrency retries of an update.
const maxWriteAttempts = 4

// UpdateHarness applies an update to a harness of the project: apply receives the latest configuration and
// returns the new one, which becomes version latest+1 (every successful update is a new version). apply's error
// is returned as is, with nothing written. Idempotent by req.ClientToken like CreateHarness. Errors: ErrNotFound
// for a missing or foreign harness; ErrBusy when concurrent updates keep winning.
func (e *Engine) UpdateHarness(ctx context.Context, projectID, harnessID string, req Request, apply func(old json.RawMessage) (json.RawMessage, error)) (Harness, error) {
	const op = "UpdateHarness"
	s, err := e.agentCoreStore()
	if err != nil {
		return Harness{}, err
	}
	if h, found, err := replay[Harness](ctx, e, projectID, op+"#"+harnessID, req); err != nil || found {
		return h, err
	}
	for attempt := 0; attempt < maxWriteAttempts; attempt++ {
		old, err := s.GetHarness(ctx, projectID, harnessID)
		if err != nil {
			return Harness{}, err
		}
		cfg, err := apply(old.Config)
		if err != nil {
			return Harness{}, err
		}
		h := old
		h.Config, h.Version, h.LatestVersion = cfg, old.LatestVersion+1, old.LatestVersion+1
		h.UpdatedAt, h.Revision, h.Status = e.nowMillis(), old.Revision+1, HarnessReady
		v := HarnessVersion{ProjectID: projectID, HarnessID: harnessID, Version: h.Version, Config: cfg, CreatedAt: h.UpdatedAt}
		idem, err := e.idempotency(projectID, op+"#"+harnessID, req, h)
		if err != nil {
			return Harness{}, err
		}
		err = s.UpdateHarness(ctx, h, v, idem)
		if err == nil {
			return h, nil
		}
		if !errors.Is(err, ErrConflict) {
			return Harness{}, err
		}
		e.conflicts.Add(1)
		if prev, found, rerr := replay[Harness](ctx, e, projectID, op+"#"+harnessID, req); rerr != nil || found {
			return prev, rerr
		}
	}
	return Harness{}, fmt.Errorf("update harness %s: %w", harnessID, ErrBusy)
}

// DeleteHarness deletes a harness of the project with its versions and endpoints and returns it with status
// DELETING; afterwards it is not found. Idempotent by req.ClientToken. Errors: ErrNotFound for a missing or
// foreign harness.
func (e *Engine) DeleteHarness(ctx context.Context, projectID, harnessID string, req Request) (Harness, error) {
	const op = "DeleteHarness"
	s, err := e.agentCoreStore()
	if err != nil {
		return Harness{}, err
	}
	if h, found, err := replay[Harness](ctx, e, projectID, op+"#"+harnessID, req); err != nil || found {
		return h, err
	}
	h, err := s.GetHarness(ctx, projectID, harnessID)
	if err != nil {
		return Harness{}, err
	}
	h.Status, h.UpdatedAt = HarnessDeleting, e.nowMillis()
	idem, err := e.idempotency(projectID, op+"#"+harnessID, req, h)
	if err != nil {
		return Harness{}, err
	}
	if err := s.DeleteHarness(ctx, h, idem); err != nil {
		if errors.Is(err, ErrConflict) {
			return afterConflict[Harness](ctx, e, projectID, op+"#"+harnessID, req, fmt.Errorf("delete harness %s: %w", harnessID, ErrBusy))
		}
		return Harness{}, err
	}
	return h, nil
}

// ListHarnessVersions lists a harness's versions in ascending order after version `after` (0 = from the first);
// next is 0 on the last page. ErrNotFound for a missing or foreign harness.
func (e *Engine) ListHarnessVersions(ctx context.Context, projectID, harnessID string, after int64, limit int) ([]HarnessVersion, int64, error) {
	s, err := e.agentCoreStore()
	if err != nil {
		return nil, 0, err
	}
	if _, err := s.GetHarness(ctx, projectID, harnessID); err != nil {
		return nil, 0, err
	}
	return s.ListHarnessVersions(ctx, projectID, harnessID, after, limit)
}

// EndpointChange is a CreateHarnessEndpoint / UpdateHarnessEndpoint request: TargetVersion 0 means the latest
// version (create) or unchanged (update); Description nil means none (create) or unchanged (update).
type EndpointChange struct {
	TargetVersion int64
	Description   *string
}

func (e *Engine) defaultEndpoint(h Harness) HarnessEndpoint {
	return HarnessEndpoint{ProjectID: h.ProjectID, HarnessID: h.ID, Name: DefaultHarnessEndpoint, Status: HarnessReady,
		TargetVersion: h.LatestVersion, LiveVersion: h.LatestVersion, CreatedAt: h.CreatedAt, UpdatedAt: h.UpdatedAt}
}

func checkTarget(h Harness, v int64) error {
	if v > h.LatestVersion {
		return &MemberError{Member: "targetVersion", Message: fmt.Sprintf("version %d of harness %s does not exist (latest is %d)", v, h.ID, h.LatestVersion)}
	}
	return nil
}

// CreateHarnessEndpoint creates endpoint `name` of a harness of the project, targeting ch.TargetVersion (0 = the
// latest). Idempotent by req.ClientToken. Errors: ErrNotFound (harness); ErrAlreadyExists (name taken, DEFAULT
// included); *MemberError for a targetVersion that does not exist.
func (e *Engine) CreateHarnessEndpoint(ctx context.Context, projectID, harnessID, name string, ch EndpointChange, req Request) (HarnessEndpoint, error) {
	op := "CreateHarnessEndpoint#" + harnessID
	s, err := e.agentCoreStore()
	if err != nil {
		return HarnessEndpoint{}, err
	}
	if ep, found, err := replay[HarnessEndpoint](ctx, e, projectID, op, req); err != nil || found {
		return ep, err
	}
	h, err := s.GetHarness(ctx, projectID, harnessID)
	if err != nil {
		return HarnessEndpoint{}, err
	}
	if name == DefaultHarnessEndpoint {
		return HarnessEndpoint{}, fmt.Errorf("endpoint %s: %w", name, ErrAlreadyExists)
	}
	target := ch.TargetVersion
	if target == 0 {
		target = h.LatestVersion
	}
	if err := checkTarget(h, target); err != nil {
		return HarnessEndpoint{}, err
	}
	now := e.nowMillis()
	ep := HarnessEndpoint{ProjectID: projectID, HarnessID: harnessID, Name: name, Status: HarnessReady, TargetVersion: target, LiveVersion: target,
		Description: ch.Description, CreatedAt: now, UpdatedAt: now, Revision: 1}
	idem, err := e.idempotency(projectID, op, req, ep)
	if err != nil {
		return HarnessEndpoint{}, err
	}
	if err := s.PutHarnessEndpoint(ctx, ep, idem); err != nil {
		if errors.Is(err, ErrConflict) {
			return afterConflict[HarnessEndpoint](ctx, e, projectID, op, req, fmt.Errorf("endpoint %s: %w", name, ErrAlreadyExists))
		}
		return HarnessEndpoint{}, err
	}
	return ep, nil
}

// GetHarnessEndpoint returns an endpoint of a harness of the project; DEFAULT always exists and targets the latest
// version. ErrNotFound for a missing or foreign harness or endpoint.
func (e *Engine) GetHarnessEndpoint(ctx context.Context, projectID, harnessID, name string) (HarnessEndpoint, error) {
	s, err := e.agentCoreStore()
	if err != nil {
		return HarnessEndpoint{}, err
	}
	h, err := s.GetHarness(ctx, projectID, harnessID)
	if err != nil {
		return HarnessEndpoint{}, err
	}
	if name == DefaultHarnessEndpoint {
		return e.defaultEndpoint(h), nil
	}
	return s.GetHarnessEndpoint(ctx, projectID, harnessID, name)
}

// ListHarnessEndpoints lists a harness's endpoints by name, DEFAULT first (on the first page); next "" on the
// last page.
func (e *Engine) ListHarnessEndpoints(ctx context.Context, projectID, harnessID, after string, limit int) ([]HarnessEndpoint, string, error) {
	s, err := e.agentCoreStore()
	if err != nil {
		return nil, "", err
	}
	h, err := s.GetHarness(ctx, projectID, harnessID)
	if err != nil {
		return nil, "", err
	}
	var out []HarnessEndpoint
	if after == "" {
		out = append(out, e.defaultEndpoint(h))
		limit--
		if limit == 0 {
			// One more page may hold the named endpoints.
			more, _, err := s.ListHarnessEndpoints(ctx, projectID, harnessID, "", 1)
			if err != nil {
				return nil, "", err
			}
			if len(more) > 0 {
				return out, DefaultHarnessEndpoint, nil
			}
			return out, "", nil
		}
	}
	if after == DefaultHarnessEndpoint {
		after = ""
	}
	list, next, err := s.ListHarnessEndpoints(ctx, projectID, harnessID, after, limit)
	if err != nil {
		return nil, "", err
	}
	return append(out, list...), next, nil
}

// UpdateHarnessEndpoint retargets and/or redescribes an endpoint. Idempotent by req.ClientToken. Errors:
// ErrNotFound; *MemberError for DEFAULT (always the latest) or a targetVersion that does not exist; ErrBusy.
func (e *Engine) UpdateHarnessEndpoint(ctx context.Context, projectID, harnessID, name string, ch EndpointChange, req Request) (HarnessEndpoint, error) {
	op := "UpdateHarnessEndpoint#" + harnessID + "#" + name
	s, err := e.agentCoreStore()
	if err != nil {
		return HarnessEndpoint{}, err
	}
	if ep, found, err := replay[HarnessEndpoint](ctx, e, projectID, op, req); err != nil || found {
		return ep, err
	}
	h, err := s.GetHarness(ctx, projectID, harnessID)
	if err != nil {
		return HarnessEndpoint{}, err
	}
	if name == DefaultHarnessEndpoint {
		return HarnessEndpoint{}, &MemberError{Member: "endpointName", Message: "the DEFAULT endpoint always targets the latest version and cannot be changed"}
	}
	old, err := s.GetHarnessEndpoint(ctx, projectID, harnessID, name)
	if err != nil {
		return HarnessEndpoint{}, err
	}
	ep := old
	if ch.TargetVersion != 0 {
		if err := checkTarget(h, ch.TargetVersion); err != nil {
			return HarnessEndpoint{}, err
		}
		ep.TargetVersion, ep.LiveVersion = ch.TargetVersion, ch.TargetVersion
	}
	if ch.Description != nil {
		ep.Description = ch.Description
	}
	ep.UpdatedAt, ep.Revision, ep.Status = e.nowMillis(), old.Revision+1, HarnessReady
	idem, err := e.idempotency(projectID, op, req, ep)
	if err != nil {
		return HarnessEndpoint{}, err
	}
	if err := s.PutHarnessEndpoint(ctx, ep, idem); err != nil {
		if errors.Is(err, ErrConflict) {
			return afterConflict[HarnessEndpoint](ctx, e, projectID, op, req, fmt.Errorf("endpoint %s: %w", name, ErrBusy))
		}
		return HarnessEndpoint{}, err
	}
	return ep, nil
}

// DeleteHarnessEndpoint deletes an endpoint and returns it with status DELETING. Idempotent by req.ClientToken.
// Errors: ErrNotFound; *MemberError for DEFAULT.
func (e *Engine) DeleteHarnessEndpoint(ctx context.Context, projectID, harnessID, name string, req Request) (HarnessEndpoint, error) {
	op := "DeleteHarnessEndpoint#" + harnessID + "#" + name
	s, err := e.agentCoreStore()
	if err != nil {
		return HarnessEndpoint{}, err
	}
	if ep, found, err := replay[HarnessEndpoint](ctx, e, projectID, op, req); err != nil || found {
		return ep, err
	}
	if _, err := s.GetHarness(ctx, projectID, harnessID); err != nil {
		return HarnessEndpoint{}, err
	}
	if name == DefaultHarnessEndpoint {
		return HarnessEndpoint{}, &MemberError{Member: "endpointName", Message: "the DEFAULT endpoint cannot be deleted"}
	}
	ep, err := s.GetHarnessEndpoint(ctx, projectID, harnessID, name)
	if err != nil {
		return HarnessEndpoint{}, err
	}
	out := ep
	out.Status, out.UpdatedAt = HarnessDeleting, e.nowMillis()
	idem, err := e.idempotency(projectID, op, req, out)
	if err != nil {
		return HarnessEndpoint{}, err
	}
	if err := s.DeleteHarnessEndpoint(ctx, ep, idem); err != nil {
		if errors.Is(err, ErrConflict) {
			return afterConflict[HarnessEndpoint](ctx, e, projectID, op, req, fmt.Errorf("endpoint %s: %w", name, ErrBusy))
		}
		return HarnessEndpoint{}, err
	}
	return out, nil
}

// HarnessForInvoke returns the harness version an InvokeHarness call runs (docs/agentcore.md §3.3): the harness
// whose ARN is harnessARN, in the project, with the configuration of the version that endpoint `qualifier`
// targets ("" or DEFAULT = the latest version). Errors: ErrNotFound — identical for a missing harness, a foreign
// project's harness, an ARN of another region or account, and an unknown endpoint.
func (e *Engine) HarnessForInvoke(ctx context.Context, projectID, harnessARN, qualifier string) (Harness, error) {
	i := strings.LastIndex(harnessARN, ":harness/")
	if i < 0 {
		return Harness{}, fmt.Errorf("harness ARN %q: %w", harnessARN, ErrNotFound)
	}
	id := harnessARN[i+len(":harness/"):]
	s, err := e.agentCoreStore()
	if err != nil {
		return Harness{}, err
	}
	h, err := s.GetHarness(ctx, projectID, id)
	if err != nil {
		return Harness{}, err
	}
	if h.ARN != harnessARN {
		return Harness{}, fmt.Errorf("harness ARN %q: %w", harnessARN, ErrNotFound)
	}
	if qualifier == "" || qualifier == DefaultHarnessEndpoint {
		return h, nil
	}
	ep, err := s.GetHarnessEndpoint(ctx, projectID, id, qualifier)
	if err != nil {
		return Harness{}, err
	}
	return e.GetHarness(ctx, projectID, id, ep.LiveVersion)
}

// FormatVersion renders a harness version number as the wire's `harnessVersion` string.
func FormatVersion(v int64) string { return strconv.FormatInt(v, 10) }
