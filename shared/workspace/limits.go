package workspace

import (
	"fmt"
	"strconv"
	"time"
)

// Named defaults of Limits (docs/tools.md "Limits").
const (
	// DefaultCommandTimeout bounds the wall time of one command or program (BATON_TOOL_COMMAND_TIMEOUT_SECONDS).
	DefaultCommandTimeout = 120 * time.Second
	// DefaultOutputBytes bounds the text a tool returns to the model (BATON_TOOL_OUTPUT_BYTES).
	DefaultOutputBytes = 30000
	// DefaultMaxBytes bounds the size of one workspace: 1 GiB (BATON_WORKSPACE_MAX_BYTES).
	DefaultMaxBytes int64 = 1 << 30
	// DefaultMemoryBytes bounds the virtual memory of each sandboxed process: 2 GiB (BATON_TOOL_MEMORY_BYTES).
	DefaultMemoryBytes int64 = 2 << 30
	// DefaultNetwork lets sandboxed commands reach the network (BATON_TOOL_NETWORK), as AgentCore's own sandbox
	// does (Limits.NoNetwork false).
	DefaultNetwork = true
)

// Environment variables read by LimitsFromEnv.
const (
	EnvCommandTimeoutSeconds = "BATON_TOOL_COMMAND_TIMEOUT_SECONDS"
	EnvOutputBytes           = "BATON_TOOL_OUTPUT_BYTES"
	EnvMaxBytes              = "BATON_WORKSPACE_MAX_BYTES"
	EnvMemoryBytes           = "BATON_TOOL_MEMORY_BYTES"
	EnvNetwork               = "BATON_TOOL_NETWORK"
)

// Limits are the bounds of the builtin tools of one runtime (docs/tools.md "Limits"). A zero field means its
// named default (DefaultLimits), so Limits{} is the defaults.
type Limits struct {
	// CommandTimeout is the wall time one command or program may run before its whole process tree is killed; a
	// call may ask for less, never more.
	CommandTimeout time.Duration
	// OutputBytes is the most text one tool call returns to the model; longer output is cut with a marker saying
	// how many bytes were cut. Output beyond it is never buffered (it is read and discarded).
	OutputBytes int
	// MaxBytes is the most a workspace may hold (the sum of its regular files' sizes). It is checked after each
	// command (an over-limit workspace makes the result an error) and before each file_operations write (refused).
	MaxBytes int64
	// MemoryBytes is the virtual memory (RLIMIT_AS, `ulimit -v`) of each process a command starts.
	MemoryBytes int64
	// NoNetwork gives sandboxed processes a network namespace with only a loopback interface; false (the default)
	// lets them use the runtime's network (bubblewrap mode only: a plain process always has the network).
	NoNetwork bool
}

// DefaultLimits returns the named defaults.
func DefaultLimits() Limits {
	return Limits{CommandTimeout: DefaultCommandTimeout, OutputBytes: DefaultOutputBytes, MaxBytes: DefaultMaxBytes,
		MemoryBytes: DefaultMemoryBytes, NoNetwork: !DefaultNetwork}
}

// withDefaults fills zero fields with their defaults.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.CommandTimeout <= 0 {
		l.CommandTimeout = d.CommandTimeout
	}
	if l.OutputBytes <= 0 {
		l.OutputBytes = d.OutputBytes
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = d.MaxBytes
	}
	if l.MemoryBytes <= 0 {
		l.MemoryBytes = d.MemoryBytes
	}
	return l
}

// LimitsFromEnv reads Limits from the environment through getenv (os.Getenv in a runtime): an unset or empty
// variable keeps its default. Errors name the variable: a value that is not a positive integer (or, for
// BATON_TOOL_NETWORK, not a boolean strconv.ParseBool accepts).
func LimitsFromEnv(getenv func(string) string) (Limits, error) {
	l := DefaultLimits()
	positive := func(name string) (int64, bool, error) {
		v := getenv(name)
		if v == "" {
			return 0, false, nil
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return 0, false, fmt.Errorf("%s=%q: want a positive integer", name, v)
		}
		return n, true, nil
	}
	if n, ok, err := positive(EnvCommandTimeoutSeconds); err != nil {
		return Limits{}, err
	} else if ok {
		if n > 24*3600 {
			return Limits{}, fmt.Errorf("%s=%d: at most 86400 seconds", EnvCommandTimeoutSeconds, n)
		}
		l.CommandTimeout = time.Duration(n) * time.Second
	}
	if n, ok, err := positive(EnvOutputBytes); err != nil {
		return Limits{}, err
	} else if ok {
		if n > 64<<20 {
			return Limits{}, fmt.Errorf("%s=%d: at most 67108864 bytes", EnvOutputBytes, n)
		}
		l.OutputBytes = int(n)
	}
	if n, ok, err := positive(EnvMaxBytes); err != nil {
		return Limits{}, err
	} else if ok {
		l.MaxBytes = n
	}
	if n, ok, err := positive(EnvMemoryBytes); err != nil {
		return Limits{}, err
	} else if ok {
		l.MemoryBytes = n
	}
	if v := getenv(EnvNetwork); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return Limits{}, fmt.Errorf("%s=%q: want true or false", EnvNetwork, v)
		}
		l.NoNetwork = !b
	}
	return l, nil
}
