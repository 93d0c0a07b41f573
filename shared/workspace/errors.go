package workspace

import "errors"

// Errors of the package; callers test them with errors.Is.
var (
	// ErrPath: a path a model named is empty, outside MountPath, or escapes the workspace with "..". Paths that
	// escape through a symlink fail the file operation itself with the os.Root error ("path escapes from parent").
	ErrPath = errors.New("invalid workspace path")
	// ErrTooLarge: the workspace holds more than Limits.MaxBytes, or a write would make it.
	ErrTooLarge = errors.New("workspace size limit exceeded")
	// ErrSessionID: an empty session id.
	ErrSessionID = errors.New("invalid session id")
)
