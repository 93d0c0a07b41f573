package session

import (
	"fmt"
	"slices"
)

// This file is the one home of a Turn's lifecycle (docs/internals.md "Turn lifecycle"): every condition on the
// state of a Turn that decides what a tool result, a task token, a resume claim, a cancel or the reconciler does is a
// method here. The methods do no I/O: the engine loads a Turn, lets these methods decide and change it, and commits
// the result with a conditional write on the Turn's version (load → decide → commit).

// Mark is the reconciler's index entry of a Turn, derived from its state (never set by hand).
type Mark string

// Reconciler marks. MarkNone: a terminal Turn, nothing to watch.
const (
	MarkNone Mark = ""
	// MarkUnstarted: queued, no runtime has begun it yet. Its execution normally runs, waiting for a runtime to
	// take its activity task; the reconciler starts an execution that is missing (its StartExecution failed) and
	// settles the turn when its execution ended (docs/internals.md "The reconciler").
	MarkUnstarted Mark = "UNSTARTED"
	// MarkActive: started and not terminal; the reconciler settles it if its execution ended without settling it.
	MarkActive Mark = "ACTIVE"
	// MarkResuming: waiting, every call of the round answered and the round's task token stored: a resume is due
	// until the harness begins the resumed run. The reconciler claims and sends a resume nobody confirmed.
	MarkResuming Mark = "RESUMING"
)

// Mark returns the Turn's reconciler mark. It depends on the Turn's state alone, so every write of a Turn stores
// the right mark: a queued Turn is UNSTARTED until the runtime's start commit moves it to in_progress.
func (t Turn) Mark() Mark {
	switch {
	case t.Status.Terminal():
		return MarkNone
	case t.Status == TurnQueued:
		return MarkUnstarted
	case t.ResumeDue():
		return MarkResuming
	default:
		return MarkActive
	}
}

// Runnable reports whether a harness may (still) work on the Turn: it is neither terminal nor asked to cancel.
func (t Turn) Runnable() bool { return !t.Status.Terminal() && !t.CancelRequested }

// AllAnswered reports whether every call of the current round has a stored result (false without calls).
func (t Turn) AllAnswered() bool {
	for _, id := range t.PendingCalls {
		if !slices.Contains(t.Answered, id) {
			return false
		}
	}
	return len(t.PendingCalls) > 0
}

// ResultVerdict is what a submitted tool result does (the "Results" table, docs/internals.md).
type ResultVerdict int

// Result verdicts.
const (
	// ResultAccepted: a first result for a pending call of the current round: store it; the call is answered.
	ResultAccepted ResultVerdict = iota
	// ResultIdentical: the call already has exactly this result: accepted again, nothing written.
	ResultIdentical
	// ResultDifferent: the call already has another result: 409 conflict_error.
	ResultDifferent
	// ResultNotAccepting: the Turn no longer (or not yet) waits for this call — cancelled, ended, another round:
	// 409 conflict_error.
	ResultNotAccepting
)

// AcceptResult decides result r for call c of this Turn, given the call's stored result prev (nil if none), and
// on ResultAccepted records the call as answered. The caller has checked that c belongs to this Turn (else the
// result is "Unknown pending tool call").
func (t *Turn) AcceptResult(c Call, prev *ToolResult, r ToolResult) ResultVerdict {
	if prev != nil {
		if prev.Identity() == r.Identity() {
			return ResultIdentical
		}
		return ResultDifferent
	}
	if t.Status != TurnWaiting || t.CancelRequested || c.Round != t.Round || slices.Contains(t.Answered, c.CallID) {
		return ResultNotAccepting
	}
	t.Answered = append(t.Answered, c.CallID)
	return ResultAccepted
}

// RequestCalls parks the Turn on a new round of calls (in call order); queued are the calls of the same model
// response that come after them, run once the round's results arrive (nil = none).
func (t *Turn) RequestCalls(callIDs []string, queued []QueuedCall) {
	t.Round++
	t.PendingCalls = slices.Clone(callIDs)
	t.Queued = queued
	t.CallsTotal += len(callIDs)
	t.Status = TurnWaiting
}

// ParkVerdict is what storing a task token does.
type ParkVerdict int

// Park verdicts.
const (
	// ParkStored: the token is new for this round: write the Turn.
	ParkStored ParkVerdict = iota
	// ParkUnchanged: the same token is stored already (a retried Park): nothing to write.
	ParkUnchanged
	// ParkIgnored: the Turn is terminal or cancelled; its execution is being stopped or settled: drop the token.
	ParkIgnored
)

// Park stores the task token of the AwaitResults state of round. A retried AwaitResults brings a new token for the
// same round: it replaces the old one, and a resume claimed for the old token no longer counts (ClaimResume). An
// error means the token belongs to no round the Turn waits in.
func (t *Turn) Park(round int, token string) (ParkVerdict, error) {
	if !t.Runnable() {
		return ParkIgnored, nil
	}
	if t.Round != round || t.Status != TurnWaiting {
		return 0, fmt.Errorf("park turn %s: round %d, turn is %s in round %d", t.ID, round, t.Status, t.Round)
	}
	if t.TokenRound == round && t.TaskToken == token {
		return ParkUnchanged, nil
	}
	t.TaskToken, t.TokenRound = token, round
	return ParkStored, nil
}

// ResumeDue reports whether the Turn should be resumed: it waits, is not cancelled, every call of its round is
// answered and the round's task token is stored.
func (t Turn) ResumeDue() bool {
	return t.Status == TurnWaiting && !t.CancelRequested && t.AllAnswered() && t.TokenRound == t.Round && t.TaskToken != ""
}

// ClaimVerdict is whether a caller sends the resume.
type ClaimVerdict int

// Claim verdicts.
const (
	// ClaimNotDue: no resume is due (ResumeDue is false).
	ClaimNotDue ClaimVerdict = iota
	// ClaimTaken: write the Turn (its claim changed) and, once that write succeeds, send the stored token.
	ClaimTaken
	// ClaimHeld: another caller claimed this token less than grace ago; it sends.
	ClaimHeld
)

// ClaimResume claims the resume of the current round at nowMS (Unix milliseconds). A claim belongs to one task
// token: a claim for a token that was replaced since (a retried AwaitResults) does not hold, and neither does one
// older than graceMS whose resume was never confirmed (the claimant's send failed or its process died), so exactly
// one live claim sends each token, and no claim can strand the Turn.
func (t *Turn) ClaimResume(nowMS, graceMS int64) ClaimVerdict {
	if !t.ResumeDue() {
		return ClaimNotDue
	}
	if t.ResumedRound == t.Round && t.ClaimedToken == t.TaskToken && nowMS-t.ResumeClaimedAt < graceMS {
		return ClaimHeld
	}
	t.ResumedRound, t.ResumeClaimedAt, t.ClaimedToken = t.Round, nowMS, t.TaskToken
	return ClaimTaken
}

// BeginResume moves a waiting Turn whose resume was sent back to in_progress (the harness applies the results);
// false when no resume is due.
func (t *Turn) BeginResume() bool {
	if !t.ResumeDue() || t.ResumedRound != t.Round {
		return false
	}
	t.Status = TurnInProgress
	return true
}

// RequestCancel marks a running Turn as asked to cancel (a fence: the harness's next write fails and it stops);
// false when there is nothing to mark (not in progress, or marked already).
func (t *Turn) RequestCancel() bool {
	if t.Status != TurnInProgress || t.CancelRequested {
		return false
	}
	t.CancelRequested = true
	return true
}

// Cancel ends the Turn as cancelled at now (Unix seconds).
func (t *Turn) Cancel(now int64) {
	t.Status = TurnCancelled
	t.CancelRequested = true
	t.CompletedAt = &now
}
