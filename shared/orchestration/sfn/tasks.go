package sfn

import (
	"context"
	"time"

	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/statemachine"
)

// ParkHandler returns the Park function's handler: it stores the AwaitResults task token for the turn's round
// and, when every pending call already has a result, resumes the turn (engine.Engine.Park).
func ParkHandler(eng *engine.Engine) func(ctx context.Context, in statemachine.ParkInput) (statemachine.ParkOutput, error) {
	return func(ctx context.Context, in statemachine.ParkInput) (statemachine.ParkOutput, error) {
		return statemachine.ParkOutput{}, eng.Park(ctx, in.SessionID, in.TurnID, in.Round, in.TaskToken)
	}
}

// SettleHandler returns the Settle function's handler: it commits the turn's terminal state
// (engine.Engine.Settle) and returns it.
func SettleHandler(eng *engine.Engine) func(ctx context.Context, in statemachine.SettleInput) (statemachine.SettleOutput, error) {
	return func(ctx context.Context, in statemachine.SettleInput) (statemachine.SettleOutput, error) {
		status, err := eng.Settle(ctx, in.SessionID, in.TurnID, in.Run)
		return statemachine.SettleOutput{Status: status}, err
	}
}

// ReconcileHandler returns the Reconcile function's handler (scheduled): it starts turns that were written but
// whose execution was not confirmed started at least minAge ago (engine.Engine.Reconcile).
func ReconcileHandler(eng *engine.Engine, minAge time.Duration) func(ctx context.Context) (statemachine.ReconcileOutput, error) {
	return func(ctx context.Context) (statemachine.ReconcileOutput, error) {
		n, err := eng.Reconcile(ctx, minAge)
		return statemachine.ReconcileOutput{Started: n}, err
	}
}
