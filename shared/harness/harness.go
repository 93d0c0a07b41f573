package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/session"
)

// Kind is the harness kind this package implements (DESIGN Decision 2).
const Kind = agent.HarnessBaton

// Journal is where a step's output goes, durably and in order. *engine.Run implements it; each method is one
// commit and fails with engine.ErrTurnNotRunnable once the turn was cancelled or ended.
type Journal interface {
	// StartMessage opens an assistant message with phase session.PhaseFinalAnswer or session.PhaseCommentary and
	// returns its item id.
	StartMessage(ctx context.Context, phase string) (string, error)
	// AppendText emits one text delta of an open message.
	AppendText(ctx context.Context, itemID, delta string) error
	// FinishMessage completes an open message with its whole text.
	FinishMessage(ctx context.Context, itemID, text string) error
	// RequestCalls parks the turn on the calls, in order, and returns the new round.
	RequestCalls(ctx context.Context, calls []engine.PendingCall) (int, error)
	// RecordUsage adds the step's token usage to the turn.
	RecordUsage(ctx context.Context, u session.Usage) error
}

var _ Journal = (*engine.Run)(nil)

// Job is one activity task of a turn as the harness sees it.
type Job struct {
	// TurnID is the turn being run.
	TurnID string
	// Config is the Session's frozen configuration (agent.Snapshot.Config).
	Config agent.Config
	// History is every item of the Session in seq order, including this turn's input and function results.
	History []session.Item
	// Journal receives the output.
	Journal Journal
}

// JobOf returns the Job of a begun engine run.
func JobOf(r *engine.Run) Job {
	return Job{TurnID: r.Turn.ID, Config: r.Session.Snapshot.Config, History: r.History, Journal: r}
}

// Outcome statuses (the activity output's `status`, docs/internals.md).
const (
	StatusCompleted      = "completed"
	StatusRequiresAction = "requires_action"
)

// Outcome is the activity task's output: {"status":"completed"} or {"status":"requires_action","round":n}, where
// round is the turn's round the calls were requested in (1-based).
type Outcome struct {
	Status string `json:"status"`
	Round  int    `json:"round,omitempty"`
}

// Run performs one model step of a turn: it builds the request from job (NewRequest), streams the model's
// response into the journal and returns the outcome.
//
// Text deltas become one assistant message per run of text; a message's phase is commentary when the response
// also calls functions and final_answer otherwise (streamed live when the provider declares the phase, held back
// until it is known when it does not, see Part.Phase). Usage parts are summed and recorded before the calls or the
// final message are committed. With calls, the journal parks the turn and Run returns requires_action and the
// round; without, completed (a response with neither text nor calls completes the turn without output).
//
// Errors: the model's *ModelError (also for a stream that fails midway; output already journaled stays and the
// state machine's settle marks it incomplete), ctx's error, engine.ErrTurnNotRunnable (wrapped) when the turn was
// cancelled meanwhile, or a journal (store) error.
func Run(ctx context.Context, job Job, model Model) (Outcome, error) {
	req := NewRequest(job.TurnID, job.Config, job.History)
	st, err := model.Stream(ctx, req)
	if err != nil {
		return Outcome{}, err
	}
	defer st.Close()
	s := &step{ctx: ctx, j: job.Journal}
	for {
		p, err := st.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Outcome{}, err
		}
		if err := s.take(p); err != nil {
			return Outcome{}, err
		}
	}
	return s.end()
}

// step is the state of one response being journaled.
type step struct {
	ctx context.Context
	j   Journal
	// open is the item id of the message being streamed live ("" = none); text its text so far.
	open string
	text strings.Builder
	// held are text deltas whose message phase is not known yet.
	held  []string
	calls []engine.PendingCall
	usage *session.Usage
}

func (s *step) take(p Part) error {
	switch p.Kind {
	case PartText:
		if p.Text == "" {
			return nil
		}
		if s.open == "" && p.Phase != "" && len(s.held) == 0 {
			if err := s.start(p.Phase); err != nil {
				return err
			}
		}
		if s.open == "" {
			s.held = append(s.held, p.Text)
			return nil
		}
		return s.appendText(p.Text)
	case PartCall:
		if p.Call == nil || p.Call.Name == "" || p.Call.ID == "" {
			return &ModelError{Cause: "the model returned a function call without a name or call id"}
		}
		if err := s.flush(session.PhaseCommentary); err != nil {
			return err
		}
		s.calls = append(s.calls, engine.PendingCall{CallID: p.Call.ID, Name: p.Call.Name, Arguments: p.Call.Arguments})
		return nil
	case PartUsage:
		if p.Usage != nil {
			if s.usage == nil {
				s.usage = &session.Usage{}
			}
			s.usage.InputTokens += p.Usage.InputTokens
			s.usage.OutputTokens += p.Usage.OutputTokens
		}
		return nil
	default:
		return fmt.Errorf("harness: unknown model part kind %d", p.Kind)
	}
}

// start opens a message with the given phase.
func (s *step) start(phase string) error {
	id, err := s.j.StartMessage(s.ctx, phase)
	if err != nil {
		return fmt.Errorf("start message: %w", err)
	}
	s.open = id
	s.text.Reset()
	return nil
}

func (s *step) appendText(delta string) error {
	if err := s.j.AppendText(s.ctx, s.open, delta); err != nil {
		return fmt.Errorf("append text: %w", err)
	}
	s.text.WriteString(delta)
	return nil
}

// flush ends the current run of text: held text becomes a message of the given phase, and the open (or just
// opened) message is finished.
func (s *step) flush(phase string) error {
	if s.open == "" && len(s.held) > 0 {
		if err := s.start(phase); err != nil {
			return err
		}
		held := s.held
		s.held = nil
		for _, d := range held {
			if err := s.appendText(d); err != nil {
				return err
			}
		}
	}
	if s.open == "" {
		return nil
	}
	if err := s.j.FinishMessage(s.ctx, s.open, s.text.String()); err != nil {
		return fmt.Errorf("finish message: %w", err)
	}
	s.open = ""
	s.text.Reset()
	return nil
}

func (s *step) end() (Outcome, error) {
	phase := session.PhaseFinalAnswer
	if len(s.calls) > 0 {
		phase = session.PhaseCommentary
	}
	if s.usage != nil {
		if err := s.j.RecordUsage(s.ctx, *s.usage); err != nil {
			return Outcome{}, fmt.Errorf("record usage: %w", err)
		}
	}
	if err := s.flush(phase); err != nil {
		return Outcome{}, err
	}
	if len(s.calls) == 0 {
		return Outcome{Status: StatusCompleted}, nil
	}
	round, err := s.j.RequestCalls(s.ctx, s.calls)
	if err != nil {
		return Outcome{}, fmt.Errorf("request calls: %w", err)
	}
	return Outcome{Status: StatusRequiresAction, Round: round}, nil
}
