package session

import (
	"fmt"
	"strings"
	"testing"
)

func TestAllAnswered(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		turn Turn
		want bool
	}{
		{"every pending call answered", Turn{PendingCalls: []string{"a", "b"}, Answered: []string{"b", "a"}}, true},
		{"answers of an earlier round count only for their calls", Turn{PendingCalls: []string{"c"}, Answered: []string{"a", "b"}}, false},
		{"one call missing", Turn{PendingCalls: []string{"a", "b"}, Answered: []string{"a"}}, false},
		{"no pending calls is never answered", Turn{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := c.turn.AllAnswered(); got != c.want {
				t.Errorf("AllAnswered = %v, want %v", got, c.want)
			}
		})
	}
}

func waitingTurn() Turn {
	t := Turn{ID: "turn_1", Status: TurnInProgress}
	t.RequestCalls([]string{"a", "b"}, nil)
	return t
}

// TestTheMarkFollowsTheTurnsState: the reconciler mark is a function of the state alone, so a write of any kind
// stores the right one; a queued turn stays UNSTARTED until a runtime begins it, whoever else writes it.
func TestTheMarkFollowsTheTurnsState(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		turn Turn
		want Mark
	}{
		{"a queued turn is unstarted", Turn{Status: TurnQueued}, MarkUnstarted},
		{"a queued turn asked to cancel is still unstarted", Turn{Status: TurnQueued, CancelRequested: true}, MarkUnstarted},
		{"a running turn is active", Turn{Status: TurnInProgress}, MarkActive},
		{"a waiting turn without its token is active", Turn{Status: TurnWaiting, Round: 1, PendingCalls: []string{"a"}, Answered: []string{"a"}}, MarkActive},
		{"a waiting turn with every result and the token is resuming",
			Turn{Status: TurnWaiting, Round: 1, PendingCalls: []string{"a"}, Answered: []string{"a"}, TaskToken: "tok", TokenRound: 1}, MarkResuming},
		{"a completed turn has no mark", Turn{Status: TurnCompleted}, MarkNone},
		{"a failed turn has no mark", Turn{Status: TurnFailed}, MarkNone},
		{"a cancelled turn has no mark", Turn{Status: TurnCancelled}, MarkNone},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.turn.Mark(); got != tc.want {
				t.Errorf("Mark() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAcceptResultFollowsTheResultsTable(t *testing.T) {
	t.Parallel()
	call := Call{CallID: "a", TurnID: "turn_1", Round: 1}
	res := ToolResult{TurnID: "turn_1", CallID: "a", Success: true}
	other := ToolResult{TurnID: "turn_1", CallID: "a", Success: false}
	cases := []struct {
		name string
		turn func() Turn
		call Call
		prev *ToolResult
		want ResultVerdict
	}{
		{"a first result of a pending call is accepted", waitingTurn, call, nil, ResultAccepted},
		{"an identical retry is accepted again", waitingTurn, call, &res, ResultIdentical},
		{"an identical retry after the turn ended is accepted", func() Turn { t := waitingTurn(); t.Status = TurnCompleted; return t }, call, &res, ResultIdentical},
		{"a different result is a conflict", waitingTurn, call, &other, ResultDifferent},
		{"a first result after a cancel is not accepted", func() Turn { t := waitingTurn(); t.Cancel(1); return t }, call, nil, ResultNotAccepting},
		{"a first result of an earlier round is not accepted", func() Turn {
			t := waitingTurn()
			t.Status = TurnInProgress
			t.RequestCalls([]string{"c"}, nil)
			return t
		}, call, nil, ResultNotAccepting},
		{"a first result while the turn runs is not accepted", func() Turn { t := waitingTurn(); t.Status = TurnInProgress; return t }, call, nil, ResultNotAccepting},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			turn := c.turn()
			before := len(turn.Answered)
			got := turn.AcceptResult(c.call, c.prev, res)
			if got != c.want {
				t.Fatalf("verdict = %v, want %v", got, c.want)
			}
			if answered := len(turn.Answered) - before; (got == ResultAccepted) != (answered == 1) {
				t.Errorf("answered %d calls on verdict %v", answered, got)
			}
		})
	}
}

// sim is a turn parked on calls a and b, driven by the actors of the rendezvous (docs/decisions.md §7) against a model
// of Step Functions: each AwaitResults attempt has one live task token; a send succeeds only for the live token,
// and closes it.
type sim struct {
	t         Turn
	now       int64 // Unix milliseconds
	live      string
	resumes   int
	failSends int // the next failSends sends fail in transport (nothing reaches Step Functions)
	log       []string
}

const grace = 5000

func (s *sim) send(who string) {
	token := s.t.TaskToken
	if s.failSends > 0 {
		s.failSends--
		s.log = append(s.log, who+" send "+token+" failed")
		return
	}
	if token != "" && token == s.live {
		s.resumes++
		s.live = ""
		s.t.BeginResume() // the harness begins the resumed run
		s.log = append(s.log, who+" resumed "+token)
		return
	}
	s.log = append(s.log, who+" send "+token+" closed")
}

func (s *sim) result(id string) {
	verdict := s.t.AcceptResult(Call{CallID: id, TurnID: s.t.ID, Round: 1}, nil, ToolResult{CallID: id})
	if verdict == ResultAccepted && s.t.ClaimResume(s.now, grace) == ClaimTaken {
		s.send("result " + id)
	}
}

func (s *sim) park(token string) {
	s.live = token
	verdict, err := s.t.Park(1, token)
	if err != nil || verdict == ParkIgnored {
		return
	}
	if s.t.ClaimResume(s.now, grace) == ClaimTaken {
		s.send("park " + token)
	}
}

// reconcile is one reconciler pass after grace has passed.
func (s *sim) reconcile() {
	s.now += grace
	if s.t.Mark() == MarkResuming && s.t.ClaimResume(s.now, grace) == ClaimTaken {
		s.send("reconciler")
	}
}

func permutations(xs []string) [][]string {
	if len(xs) <= 1 {
		return [][]string{append([]string(nil), xs...)}
	}
	var out [][]string
	for i := range xs {
		rest := append(append([]string(nil), xs[:i]...), xs[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]string{xs[i]}, p...))
		}
	}
	return out
}

// TestEveryInterleavingResumesExactlyOnce runs every order of the two results, the first AwaitResults attempt
// (park1), its failure (the attempt times out or its Park Lambda fails) and its retry (park2), with the first sends
// failing in transport, then reconciler passes: the turn is resumed exactly once, never stranded, and without
// transport failures no reconciler pass is needed.
func TestEveryInterleavingResumesExactlyOnce(t *testing.T) {
	t.Parallel()
	for _, retried := range []bool{false, true} {
		actions := []string{"result a", "result b", "park1"}
		if retried {
			actions = append(actions, "fail1", "park2")
		}
		for _, failSends := range []int{0, 1, 2} {
			for _, order := range permutations(actions) {
				if !valid(order) {
					continue
				}
				name := fmt.Sprintf("%s/failing sends %d", strings.Join(order, ","), failSends)
				s := &sim{t: waitingTurn(), now: 1_000_000, failSends: failSends}
				for _, a := range order {
					s.now += 10
					switch a {
					case "result a":
						s.result("a")
					case "result b":
						s.result("b")
					case "park1":
						s.park("token1")
					case "fail1":
						if s.live == "token1" { // only a task still open can fail
							s.live = ""
						}
					case "park2":
						if s.resumes == 0 {
							s.park("token2")
						}
					}
				}
				if failSends == 0 && s.resumes != 1 {
					// Without transport failures the actors themselves resume it: no waiting for a reconciler pass.
					t.Errorf("%s: resumed %d times before any reconciler pass, want 1; log: %v", name, s.resumes, s.log)
				}
				for i := 0; i < 3 && s.resumes == 0; i++ {
					s.reconcile()
				}
				if s.resumes != 1 {
					t.Errorf("%s: resumed %d times, want 1; log: %v", name, s.resumes, s.log)
				}
				if s.t.Status != TurnInProgress || s.t.Mark() != MarkActive {
					t.Errorf("%s: after the resume the turn is %s marked %q, want in_progress marked ACTIVE", name, s.t.Status, s.t.Mark())
				}
			}
		}
	}
}

// valid keeps the orders Step Functions can produce: an attempt fails after it started, and is retried after.
func valid(order []string) bool {
	pos := map[string]int{}
	for i, a := range order {
		pos[a] = i
	}
	if f, ok := pos["fail1"]; ok && (f < pos["park1"] || pos["park2"] < f) {
		return false
	}
	return true
}

func TestAClaimHoldsOnlyForItsTokenAndOnlyUntilGrace(t *testing.T) {
	t.Parallel()
	turn := waitingTurn()
	turn.Answered = []string{"a", "b"}
	if v := turn.ClaimResume(0, grace); v != ClaimNotDue {
		t.Fatalf("without a token: %v, want ClaimNotDue", v)
	}
	if _, err := turn.Park(1, "token1"); err != nil {
		t.Fatal(err)
	}
	if turn.Mark() != MarkResuming {
		t.Fatalf("answered with a token: mark %q, want RESUMING", turn.Mark())
	}
	if v := turn.ClaimResume(100, grace); v != ClaimTaken {
		t.Fatalf("first claim: %v", v)
	}
	if v := turn.ClaimResume(200, grace); v != ClaimHeld {
		t.Fatalf("second claim moments later: %v, want ClaimHeld", v)
	}
	if _, err := turn.Park(1, "token2"); err != nil {
		t.Fatal(err)
	}
	if turn.Mark() != MarkResuming {
		t.Fatalf("a new token must not clear the resuming mark: %q", turn.Mark())
	}
	if v := turn.ClaimResume(300, grace); v != ClaimTaken || turn.ClaimedToken != "token2" {
		t.Fatalf("claim after a retried AwaitResults stored a new token: %v for %q, want ClaimTaken for token2", v, turn.ClaimedToken)
	}
	if v := turn.ClaimResume(300+grace, grace); v != ClaimTaken {
		t.Fatalf("a claim older than grace: %v, want ClaimTaken", v)
	}
}

func TestCancelStopsEverything(t *testing.T) {
	t.Parallel()
	turn := waitingTurn()
	turn.Answered = []string{"a"}
	turn.Cancel(5)
	if v, _ := turn.Park(1, "token1"); v != ParkIgnored {
		t.Errorf("park after cancel: %v, want ParkIgnored", v)
	}
	if v := turn.AcceptResult(Call{CallID: "b", Round: 1}, nil, ToolResult{CallID: "b"}); v != ResultNotAccepting {
		t.Errorf("result after cancel: %v", v)
	}
	if turn.ResumeDue() || turn.Mark() != MarkNone || turn.Runnable() {
		t.Errorf("a cancelled turn: due %v mark %q runnable %v", turn.ResumeDue(), turn.Mark(), turn.Runnable())
	}
	running := Turn{Status: TurnInProgress}
	if !running.RequestCancel() || running.RequestCancel() || running.Runnable() {
		t.Errorf("RequestCancel on a running turn: want one mark, then none, and not runnable")
	}
	queued := Turn{Status: TurnQueued}
	if queued.RequestCancel() || queued.Mark() != MarkUnstarted {
		t.Errorf("a queued turn is quiet: no cancel fence; mark %q", queued.Mark())
	}
}

// TestEveryInterleavingWithACancel adds the caller's cancel at every position of every order of the rendezvous (with
// and without a retried AwaitResults and failing sends), then settles the turn as its execution would and runs the
// reconciler: a cancel that comes before the resume reached Step Functions leaves the turn cancelled and never
// resumed; one that comes after fences the running turn, which Settle then ends as cancelled; either way nothing is
// resumed twice and the reconciler has nothing left to do.
func TestEveryInterleavingWithACancel(t *testing.T) {
	t.Parallel()
	for _, retried := range []bool{false, true} {
		actions := []string{"result a", "result b", "park1", "cancel"}
		if retried {
			actions = append(actions, "fail1", "park2")
		}
		for _, failSends := range []int{0, 1} {
			for _, order := range permutations(actions) {
				if !valid(order) {
					continue
				}
				name := fmt.Sprintf("%s/failing sends %d", strings.Join(order, ","), failSends)
				s := &sim{t: waitingTurn(), now: 1_000_000, failSends: failSends}
				resumedBeforeCancel := false
				for _, a := range order {
					s.now += 10
					switch a {
					case "result a":
						s.result("a") // after a cancel: ResultNotAccepting, nothing claimed
					case "result b":
						s.result("b")
					case "park1":
						s.park("token1")
					case "fail1":
						if s.live == "token1" {
							s.live = ""
						}
					case "park2":
						if s.resumes == 0 {
							s.park("token2")
						}
					case "cancel":
						resumedBeforeCancel = s.resumes > 0
						if s.t.Status == TurnInProgress {
							if !s.t.RequestCancel() {
								t.Fatalf("%s: a running turn refused the cancel fence", name)
							}
						} else {
							s.t.Cancel(s.now)
						}
					}
				}
				// The execution ends (stopped, or the fenced harness stops); Settle ends a fenced turn as cancelled.
				if !s.t.Status.Terminal() && s.t.CancelRequested {
					s.t.Cancel(s.now)
				}
				for i := 0; i < 3; i++ {
					s.reconcile()
				}
				if s.t.Status != TurnCancelled {
					t.Errorf("%s: turn is %s, want cancelled; log: %v", name, s.t.Status, s.log)
				}
				if want := map[bool]int{false: 0, true: 1}[resumedBeforeCancel]; s.resumes != want {
					t.Errorf("%s: resumed %d times, want %d (resumed before the cancel: %v); log: %v", name, s.resumes, want, resumedBeforeCancel, s.log)
				}
				if s.t.Mark() != MarkNone || s.t.ResumeDue() {
					t.Errorf("%s: a cancelled turn is still marked %q (due %v)", name, s.t.Mark(), s.t.ResumeDue())
				}
			}
		}
	}
}
