package harness

import "errors"

// ErrProtocolUnavailable: the Session's model provider protocol has no provider in this runtime (wrapped in a
// *ConfigError by Providers.Model). Another runtime of the same kind may host it (during a rolling update), so a
// runtime fails the task as Baton.RuntimeIncapable rather than Baton.HarnessError.
var ErrProtocolUnavailable = errors.New("model provider protocol unavailable")

// ErrNoModelProvider: the Session's configuration selects no model provider (agent.Config.ModelProtocol is "";
// admission refuses such Sessions, so only a configuration written around admission gets here). It fails the run
// as a configuration error on every runtime alike.
var ErrNoModelProvider = errors.New("no model provider selected")

// ModelError is a failure of the model provider: the request was refused, the response failed or was malformed.
// The runtime fails the activity task with the ASL error name Baton.ModelError and Cause as the cause, so Cause
// must be safe to show (no credentials, no request bodies); Err keeps the underlying error for logs.
type ModelError struct {
	Cause string
	Err   error
}

func (e *ModelError) Error() string { return "model error: " + e.Cause }

// Unwrap returns the underlying error (nil when there is none).
func (e *ModelError) Unwrap() error { return e.Err }

// ConfigError is a Session configuration the harness cannot run: an unavailable model provider protocol, an
// invalid x_baton.script, an unusable provider setting. The runtime fails the activity task with the ASL error name
// Baton.HarnessError and Cause as the cause (safe to show, like ModelError.Cause).
type ConfigError struct {
	Cause string
	Err   error
}

func (e *ConfigError) Error() string { return "harness configuration: " + e.Cause }

// Unwrap returns the underlying error (nil when there is none).
func (e *ConfigError) Unwrap() error { return e.Err }
