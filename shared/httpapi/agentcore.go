package httpapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/baton-run/baton/shared/agentcore"
	"github.com/baton-run/baton/shared/agentcore/apierror"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/jsonwire"
	"github.com/baton-run/baton/shared/sigv4auth"
)

// AgentCore front door (docs/agentcore.md): restJson1 routes under /harnesses (control plane and
// POST /harnesses/invoke) and /identities (token vault), authenticated by SigV4 (signing name bedrock-agentcore)
// with the project's access keys. Errors are `X-Amzn-ErrorType: <shape>` + `{"message",…}` (package apierror),
// mapped only by writeAgentCoreError.

// AgentCoreSigningName is the SigV4 signing name of both AgentCore planes.
const AgentCoreSigningName = "bedrock-agentcore"

// acNotFoundError is the ResourceNotFoundException of a resource kind; the same bytes whether the resource is missing or
// belongs to another project.
func acNotFoundError(kind, id string) *apierror.Error {
	return apierror.New(apierror.ResourceNotFound, fmt.Sprintf("%s %s was not found.", kind, id))
}

// unknownOperation is the error of a path or method the front door does not serve.
func unknownOperation(r *http.Request) *apierror.Error {
	return apierror.New(apierror.UnknownOperation, "The operation "+r.Method+" "+r.URL.Path+" is not supported.")
}

// isAgentCorePath reports whether a path belongs to the AgentCore front door.
func isAgentCorePath(path string) bool {
	return underPrefix(path, "/harnesses") || underPrefix(path, "/identities")
}

func (a *api) agentCoreRoutes() {
	m := a.agentcore
	a.acRoute(m, "/harnesses", methods{"GET": a.listHarnesses, "POST": a.createHarness})
	a.acRoute(m, "/harnesses/invoke", methods{"POST": a.invokeHarness})
	a.acRoute(m, "/harnesses/{harnessId}", methods{"GET": a.getHarness, "PATCH": a.updateHarness, "DELETE": a.deleteHarness})
	a.acRoute(m, "/harnesses/{harnessId}/versions", methods{"GET": a.listHarnessVersions})
	a.acRoute(m, "/harnesses/{harnessId}/endpoints", methods{"GET": a.listHarnessEndpoints, "POST": a.createHarnessEndpoint})
	a.acRoute(m, "/harnesses/{harnessId}/endpoints/{endpointName}", methods{"GET": a.getHarnessEndpoint, "PATCH": a.updateHarnessEndpoint, "DELETE": a.deleteHarnessEndpoint})
	a.acRoute(m, "/identities/CreateApiKeyCredentialProvider", methods{"POST": a.createCredentialProvider})
	a.acRoute(m, "/identities/GetApiKeyCredentialProvider", methods{"POST": a.getCredentialProvider})
	a.acRoute(m, "/identities/ListApiKeyCredentialProviders", methods{"POST": a.listCredentialProviders})
	a.acRoute(m, "/identities/UpdateApiKeyCredentialProvider", methods{"POST": a.updateCredentialProvider})
	a.acRoute(m, "/identities/DeleteApiKeyCredentialProvider", methods{"POST": a.deleteCredentialProvider})
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		a.writeAgentCoreError(w, r, unknownOperation(r))
	})
}

// acRoute registers a path and dispatches on the method; another method is UnknownOperationException.
func (a *api) acRoute(mux *http.ServeMux, pattern string, ms methods) {
	mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		h, ok := ms[r.Method]
		if !ok || h == nil {
			a.writeAgentCoreError(w, r, unknownOperation(r))
			return
		}
		h(w, r)
	})
}

// serveAgentCore is the AgentCore request gate: it reads the body (at most MaxBodyBytes), verifies the SigV4
// signature over it (docs/agentcore.md §2), records the access key's project in the request context, and
// dispatches with the body restored. A request that fails the gate is answered with nothing written.
func (a *api) serveAgentCore(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Amzn-RequestId", info(r).id)
	body, err := io.ReadAll(io.LimitReader(r.Body, a.opts.MaxBodyBytes+1))
	if err != nil {
		a.writeAgentCoreError(w, r, agentcore.CannotParse("the request body could not be read"))
		return
	}
	if int64(len(body)) > a.opts.MaxBodyBytes {
		a.writeAgentCoreError(w, r, agentcore.Invalid("body", "the request body exceeds %d bytes", a.opts.MaxBodyBytes))
		return
	}
	project, err := a.verifier.Verify(r, body)
	if err != nil {
		a.writeAgentCoreError(w, r, authError(err))
		return
	}
	info(r).project = project
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	a.agentcore.ServeHTTP(w, r)
}

// authError maps a verification failure: a known key with a wrong signature is AccessDeniedException, everything
// else (unsigned, malformed, unknown key, clock skew) UnauthorizedException; a key store that cannot answer is an
// internal error.
func authError(err error) error {
	switch {
	case errors.Is(err, sigv4auth.ErrSignatureMismatch):
		return apierror.New(apierror.AccessDenied, "The request signature we calculated does not match the signature you provided.")
	case errors.Is(err, sigv4auth.ErrClockSkew):
		return apierror.New(apierror.Unauthorized, "Signature expired: the request time is more than 15 minutes from the server time.")
	case errors.Is(err, sigv4auth.ErrUnknownKey):
		return apierror.New(apierror.Unauthorized, "The security token included in the request is invalid.")
	case errors.Is(err, sigv4auth.ErrUnsigned), errors.Is(err, sigv4auth.ErrMalformed):
		return apierror.New(apierror.Unauthorized, "The request must be signed with AWS Signature Version 4 (signing name bedrock-agentcore).")
	default:
		return err
	}
}

// lookupAccessKey is the verifier's key lookup on the engine.
func (a *api) lookupAccessKey(ctx context.Context, id string) (string, string, error) {
	p, s, err := a.eng.AccessKeySecret(ctx, id)
	if errors.Is(err, engine.ErrUnauthenticated) {
		return "", "", fmt.Errorf("access key %s: %w", id, sigv4auth.ErrUnknownKey)
	}
	return p, s, err
}

// writeAgentCoreError is the one place a control-plane error becomes a response: apierror.Map maps the errors
// both AgentCore planes share (validation, member, idempotency, conflict, not found — handlers normally say which
// resource first); anything else is an InternalServerException with a generic message, logged once with the request
// id. apierror writes the bytes.
func (a *api) writeAgentCoreError(w http.ResponseWriter, r *http.Request, err error) {
	ae, ok := apierror.Map(err, "The resource was not found.")
	if !ok {
		a.logError(r, "agentcore request failed", err)
		ae = apierror.Internal()
	}
	ae.Write(w)
}

// writeAgentCoreJSON writes v as an AgentCore JSON response.
func (a *api) writeAgentCoreJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	b, err := jsonwire.Marshal(v)
	if err != nil {
		a.logError(r, "encode response", err)
		apierror.Internal().Write(w)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// agentCoreBody returns the request body after the byte-level JSON checks (UTF-8, syntax, duplicate members, an
// object root; empty → {}), as a CannotParse ValidationException otherwise.
func agentCoreBody(r *http.Request) ([]byte, error) {
	raw, _ := io.ReadAll(r.Body)
	body, err := checkJSONBody(raw)
	if err != nil {
		var e *engine.Error
		if errors.As(err, &e) {
			return nil, agentcore.CannotParse(e.Message)
		}
		return nil, agentcore.CannotParse("invalid JSON")
	}
	return body, nil
}

// Pagination (docs/agentcore.md §4.1): maxResults 1–100 (default 100); nextToken is opaque (base64url of the last
// key of the previous page), 1–2048 characters.
const (
	defaultMaxResults = 100
	maxNextToken      = 2048
)

func parseMaxResults(s string) (int, error) {
	if s == "" {
		return defaultMaxResults, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 100 {
		return 0, agentcore.Invalid("maxResults", "must be an integer between 1 and 100")
	}
	return n, nil
}

func encodeToken(after string) *string {
	if after == "" {
		return nil
	}
	t := base64.RawURLEncoding.EncodeToString([]byte("v1:" + after))
	return &t
}

func decodeToken(t string) (string, error) {
	if t == "" {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(t)
	if len(t) > maxNextToken || err != nil || !strings.HasPrefix(string(b), "v1:") || len(b) == 3 {
		return "", agentcore.Invalid("nextToken", "is not a token returned by a previous call")
	}
	return string(b[3:]), nil
}

// listBody is a list response {key: items, "nextToken"?}; nextToken is omitted on the last page.
func listBody(key string, items any, after string) map[string]any {
	out := map[string]any{key: items}
	if t := encodeToken(after); t != nil {
		out["nextToken"] = *t
	}
	return out
}

// rfc3339 renders Unix milliseconds as the control plane's date-time (RFC 3339, UTC, milliseconds).
func rfc3339(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z") }

// epochSeconds renders Unix milliseconds as the credential-provider operations' epoch-seconds number.
func epochSeconds(ms int64) float64 { return float64(ms) / 1000 }
