package engine

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"regexp"
)

// AccessKey is an AgentCore access key (SigV4 credentials) of a project (docs/agentcore.md §2): ID is shown
// always, the secret once, at creation; SealedSecret is the secret sealed with the engine's key (AES-256-GCM).
// CreatedAt is Unix seconds.
type AccessKey struct {
	ID           string
	ProjectID    string
	SealedSecret []byte
	CreatedAt    int64
}

// Access key formats: an id of 16–128 upper-case letters and digits, a secret of 16–128 printable characters
// without spaces. Generated ids are "BATN" + 16, generated secrets 40 base64url characters.
var (
	accessKeyIDPattern     = regexp.MustCompile(`^[A-Z0-9]{16,128}$`)
	accessKeySecretPattern = regexp.MustCompile(`^[!-~]{16,128}$`)
)

const upperAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

func newAccessKeyID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = upperAlnum[int(b[i])%len(upperAlnum)]
	}
	return "BATN" + string(b[:])
}

func newAccessKeySecret() string {
	var b [30]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func accessKeyAAD(id string) string { return "accesskey#" + id }

// CreateAccessKey binds an access key to the project and returns its id and secret. id "" and secret "" are
// generated; given ones (the local launcher's stable pair) must match the formats above, and re-binding the same
// id to the same project replaces its secret (idempotent provisioning). Errors: *Error 400 for a malformed id or
// secret; ErrConflict (wrapped) when the id belongs to another project; ErrNoSealKey without a sealing key.
func (e *Engine) CreateAccessKey(ctx context.Context, projectID, id, secret string) (string, string, error) {
	s, err := e.agentCoreStore()
	if err != nil {
		return "", "", err
	}
	if id == "" {
		id = newAccessKeyID()
	} else if !accessKeyIDPattern.MatchString(id) {
		return "", "", invalid("access_key_id", "access_key_id must be 16 to 128 upper-case letters or digits.")
	}
	if secret == "" {
		secret = newAccessKeySecret()
	} else if !accessKeySecretPattern.MatchString(secret) {
		return "", "", invalid("secret_access_key", "secret_access_key must be 16 to 128 printable ASCII characters without spaces.")
	}
	sealed, err := e.sealer.seal(secret, accessKeyAAD(id))
	if err != nil {
		return "", "", err
	}
	if err := s.PutAccessKey(ctx, AccessKey{ID: id, ProjectID: projectID, SealedSecret: sealed, CreatedAt: e.now()}); err != nil {
		return "", "", fmt.Errorf("access key %s: %w", id, err)
	}
	return id, secret, nil
}

// AccessKeySecret returns the project and the secret of an access key id, for SigV4 verification. Errors:
// ErrUnauthenticated for an unknown id; other errors when the store or the sealing key cannot answer.
func (e *Engine) AccessKeySecret(ctx context.Context, id string) (projectID, secret string, err error) {
	if !accessKeyIDPattern.MatchString(id) {
		return "", "", ErrUnauthenticated
	}
	s, err := e.agentCoreStore()
	if err != nil {
		return "", "", err
	}
	k, err := s.GetAccessKey(ctx, id)
	if err != nil {
		if isNotFound(err) {
			return "", "", ErrUnauthenticated
		}
		return "", "", err
	}
	secret, err = e.sealer.open(k.SealedSecret, accessKeyAAD(id))
	if err != nil {
		return "", "", err
	}
	return k.ProjectID, secret, nil
}
