package engine

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/baton-run/baton/shared/session"
)

// Engine is Baton's use-case layer. Create it with New; it is safe for concurrent use.
type Engine struct {
	store     Store
	orch      Orchestrator
	admission Admission
	clock     func() time.Time
	newID     func(prefix string) string
	timeouts  Timeouts
	// defaultProvider is Options.DefaultModelProvider.
	defaultProvider string
	// requireRuntime: dispatch needs a live capable runtime (Options.RequireLiveRuntime).
	requireRuntime bool
	// agentCore is the region and account of AgentCore ARNs; sealer seals secrets at rest (nil: no key).
	agentCore AgentCoreIdentity
	sealer    *sealer
	// Counters counts engine-level operations for benchmarks (see Stats).
	commits   atomic.Int64
	conflicts atomic.Int64
	// wake tells this process's event readers about its commits (Wake).
	wake wakeHub
	// commitListener is Options.CommitListener.
	commitListener func(sessionID string)
	// holdFor is Options.HoldFor (DeltaFlushInterval when unset).
	holdFor time.Duration
	// history remembers the history of runs that parked their turns, for the runs that resume them (history.go).
	history historyCache
	// runtimes is the registration list the dispatch gate read last (dispatch.go).
	runtimes runtimeList
	// keys remembers API key bindings Authenticate found (immutable once stored).
	keys knownKeys
	// metrics receives measurements (Options.Metrics); nil records nothing.
	metrics Metrics
}

// Options configures an Engine. Zero Clock means time.Now; zero NewID means random time-ordered ids; zero
// Timeouts means DefaultTimeouts.
type Options struct {
	Store        Store
	Orchestrator Orchestrator
	Admission    Admission
	Clock        func() time.Time
	NewID        func(prefix string) string
	Timeouts     Timeouts
	// RequireLiveRuntime makes every operation that opens a Turn first require a live runtime of the Session's
	// harness kind that advertises every capability the Turn needs (dispatch.go); without one the request is 503
	// execution_unavailable and nothing is written. False skips the check (unit tests that run no runtime).
	RequireLiveRuntime bool
	// AgentCore is the region and account AgentCore ARNs carry (harnesses, credential providers); zero means
	// us-east-1 and 000000000000.
	AgentCore AgentCoreIdentity
	// SealKey is the AES-256-GCM key (SealKeyBytes) that seals access-key secrets and token-vault API keys at
	// rest (docs/agentcore.md §6); nil makes those operations fail with ErrNoSealKey. New panics on a key of
	// another size.
	SealKey []byte
	// Metrics receives the engine's measurements (turns started, required actions, tool results, result
	// conflicts, dispatch refusals, turn failures; observe.go, docs/operations.md §3); nil records nothing.
	Metrics Metrics
	// DefaultModelProvider is the deployment's model provider protocol (BATON_MODEL_PROVIDER, e.g. bedrock_converse)
	// for a Session whose configuration selects none (agent.Config.ModelProtocol() == ""): ResolveConfig writes it
	// into the snapshot's x_baton.model_provider. "" means none: such a Session is refused by admission
	// (docs/model-providers.md "Choosing a model").
	DefaultModelProvider string
	// CommitListener, when set, is called with the Session id after each commit this process makes that appends
	// events to a Session, besides waking this process's own event readers (Engine.Wake). It must not block. The local stack's runtimes
	// use it to wake the launcher's readers (BATON_LOCAL_WAKE_URL, docs/configuration.md); nil calls nothing.
	CommitListener func(sessionID string)
	// HoldFor is how long a run may hold output before its timer writes it (runs.go "Held output"); 0 means
	// DeltaFlushInterval. Tests that must see output held set it long.
	HoldFor time.Duration
}

// DefaultTimeouts: one model run may last an hour with a heartbeat every 60 s; a turn waits a day for results.
var DefaultTimeouts = Timeouts{RunSeconds: 3600, HeartbeatSeconds: 60, AwaitSeconds: 86400}

// New returns an Engine on the given ports. Store is required; Orchestrator is required for anything that starts,
// resumes or stops turns; Admission nil admits every configuration.
func New(o Options) *Engine {
	e := &Engine{store: o.Store, orch: o.Orchestrator, admission: o.Admission, clock: o.Clock, newID: o.NewID, timeouts: o.Timeouts, requireRuntime: o.RequireLiveRuntime,
		defaultProvider: o.DefaultModelProvider, commitListener: o.CommitListener, holdFor: o.HoldFor}
	if e.holdFor <= 0 {
		e.holdFor = DeltaFlushInterval
	}
	if e.clock == nil {
		e.clock = time.Now
	}
	if e.newID == nil {
		e.newID = NewID
	}
	if e.timeouts == (Timeouts{}) {
		e.timeouts = DefaultTimeouts
	}
	e.metrics = o.Metrics
	e.agentCore = o.AgentCore
	if e.agentCore.Region == "" {
		e.agentCore.Region = "us-east-1"
	}
	if e.agentCore.AccountID == "" {
		e.agentCore.AccountID = "000000000000"
	}
	sl, err := newSealer(o.SealKey)
	if err != nil {
		panic(err)
	}
	e.sealer = sl
	return e
}

// Stats are the engine's own counters since start: committed transactions and optimistic-concurrency retries.
type Stats struct {
	Commits   int64 `json:"commits"`
	Conflicts int64 `json:"conflicts"`
}

// Stats returns the engine's counters.
func (e *Engine) Stats() Stats {
	return Stats{Commits: e.commits.Load(), Conflicts: e.conflicts.Load()}
}

// NewID returns prefix + "_" + 12 hex digits of the Unix time in milliseconds + 16 random hex digits, so ids of one
// prefix sort by creation time.
func NewID(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s_%012x%s", prefix, time.Now().UnixMilli(), hex.EncodeToString(b[:]))
}

// HashKey returns the SHA-256 hex digest under which an API key is stored (keys are never stored in clear).
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// Authenticate returns the project of a bearer API key, or ErrUnauthenticated.
func (e *Engine) Authenticate(ctx context.Context, apiKey string) (string, error) {
	apiKey = strings.TrimSpace(apiKey)
	if apiKey == "" {
		return "", ErrUnauthenticated
	}
	hash := HashKey(apiKey)
	if p, ok := e.keys.get(hash); ok {
		return p, nil
	}
	p, err := e.store.ProjectForKey(ctx, hash)
	if err != nil {
		if isNotFound(err) {
			return "", ErrUnauthenticated // not remembered: the key may be provisioned later
		}
		return "", err
	}
	e.keys.put(hash, p)
	return p, nil
}

// maxKnownKeys bounds how many key bindings an Engine remembers.
const maxKnownKeys = 1024

// knownKeys remembers the project of each API key (by its hash) Authenticate found, so a process reads a key's
// binding once, not once per request. This is sound because a binding never changes once stored: PutProjectKey
// refuses to bind a key to another project and nothing deletes a binding. Anything that ever revokes or rebinds a
// key must drop this memory. Only found keys are remembered.
type knownKeys struct {
	mu       sync.Mutex
	projects map[string]string
}

func (k *knownKeys) get(hash string) (string, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	p, ok := k.projects[hash]
	return p, ok
}

func (k *knownKeys) put(hash, projectID string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.projects == nil || len(k.projects) >= maxKnownKeys {
		k.projects = map[string]string{}
	}
	k.projects[hash] = projectID
}

// ProvisionKey binds apiKey to projectID (idempotent). Used by the admin API and by the local launcher.
func (e *Engine) ProvisionKey(ctx context.Context, projectID, apiKey string) error {
	return e.store.PutProjectKey(ctx, projectID, HashKey(apiKey))
}

// itemID returns an item id that embeds the item's session sequence so cursors can be resolved:
// prefix + "_" + 12 decimal digits of seq + 8 random hex digits.
func itemID(prefix string, seq int64) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s_%012d%s", prefix, seq, hex.EncodeToString(b[:]))
}

// eventID returns "evt_" + 12 decimal digits of the event's session sequence + 8 random hex digits.
func eventID(seq int64) string { return itemID("evt", seq) }

// SeqOfID extracts the session sequence embedded by itemID/eventID; ok is false for any other string.
func SeqOfID(id string) (int64, bool) {
	i := strings.IndexByte(id, '_')
	if i < 0 || len(id) < i+1+12 {
		return 0, false
	}
	var n int64
	for _, c := range id[i+1 : i+13] {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, n > 0
}

func (e *Engine) now() int64 { return e.clock().Unix() }

var _ = session.StatusIdle
