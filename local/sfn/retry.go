package sfn

import (
	"math"
	"time"
)

// retrier is one element of a Task's Retry array (spec §4.8).
type retrier struct {
	ErrorEquals     []string
	IntervalSeconds int64   // ≥ 1, default 1
	MaxAttempts     int64   // ≥ 0, default 3; 0 = never retry
	BackoffRate     float64 // ≥ 1.0, default 2.0
	MaxDelaySeconds int64   // 0 = no cap
	JitterFull      bool
}

// catcher is one element of a Task's Catch array (spec §4.8).
type catcher struct {
	ErrorEquals []string
	Next        string
	ResultPath  *dataPath
}

// retryDelay is the wait before the attempt-th retry (1-based) of r: min(Interval × Backoff^(attempt−1),
// MaxDelay); with FULL jitter a uniform draw from [0, that] using rnd (a value in [0,1)).
func retryDelay(r retrier, attempt int64, rnd func() float64) time.Duration {
	secs := float64(r.IntervalSeconds) * math.Pow(r.BackoffRate, float64(attempt-1))
	if r.MaxDelaySeconds > 0 && secs > float64(r.MaxDelaySeconds) {
		secs = float64(r.MaxDelaySeconds)
	}
	if r.JitterFull && rnd != nil {
		secs *= rnd()
	}
	const maxSecs = 99999999.0
	if secs > maxSecs {
		secs = maxSecs
	}
	return time.Duration(secs * float64(time.Second))
}

// errorMatches reports whether a matcher list (ErrorEquals) matches err (spec §4.8): States.ALL matches
// everything except States.Runtime (never retried or caught); States.TaskFailed everything except
// States.Timeout; States.HeartbeatTimeout a timeout caused by a missed heartbeat.
func errorMatches(equals []string, err *stateError) bool {
	name := deref(err.Name)
	if name == errRuntime {
		return false
	}
	for _, e := range equals {
		switch {
		case e == errAll:
			return true
		case e == errTaskFailed && name != errTimeout:
			return true
		case e == errHeartbeatTimeout && name == errTimeout && err.Heartbeat:
			return true
		case e == name:
			return true
		}
	}
	return false
}
