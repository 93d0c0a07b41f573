package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/session"
)

// maxTransactGet is DynamoDB's limit of items in one TransactGetItems request.
const maxTransactGet = 100

// ReadInputs implements engine.Store: the Session (META and SNAPSHOT), the named turns, calls and the calls'
// results in one TransactGetItems request, so the read is isolated from any concurrent transaction (it sees a
// commit of a result and its turn update entirely or not at all). A read of more than maxTransactGet keys, one
// DynamoDB cancels because a transaction writing those items is in flight (a streaming turn writes the Session
// META often), or one refused for its size (a transactional read returns at most 4 MB) is done as consistent
// reads one kind after the other instead (readInputsInOrder), so a busy Session never makes an input wait.
func (s *Store) ReadInputs(ctx context.Context, sessionID string, turnIDs, callIDs []string) (engine.InputState, error) {
	turnIDs, callIDs = distinct(turnIDs), distinct(callIDs)
	if 2+len(turnIDs)+2*len(callIDs) > maxTransactGet {
		return s.readInputsInOrder(ctx, sessionID, turnIDs, callIDs)
	}
	pk := sessionPK(sessionID)
	get := func(sk string) types.TransactGetItem {
		return types.TransactGetItem{Get: &types.Get{TableName: &s.table, Key: key(pk, sk)}}
	}
	items := []types.TransactGetItem{get(skMeta), get(skSnapshot)}
	for _, id := range turnIDs {
		items = append(items, get(turnSK(id)))
	}
	for _, id := range callIDs {
		items = append(items, get(callSK(id)), get(resultSK(id)))
	}
	out, err := s.db.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: items})
	if err = translate(err, "read inputs of session "+sessionID); errors.Is(err, engine.ErrConflict) || errors.Is(err, engine.ErrTooLarge) {
		// In flight: a transaction writing these items; too large: over the 4 MB a transactional read returns.
		return s.readInputsInOrder(ctx, sessionID, turnIDs, callIDs)
	}
	if err != nil {
		return engine.InputState{}, err
	}
	st := engine.InputState{Turns: map[string]session.Turn{}, Calls: map[string]session.Call{}, Results: map[string]session.ToolResult{}}
	var meta sessionRecord
	var snap snapshotRecord
	found := false
	for i, r := range out.Responses {
		if len(r.Item) == 0 {
			continue
		}
		var err error
		switch sk := items[i].Get.Key[SortKey].(*types.AttributeValueMemberS).Value; {
		case sk == skMeta:
			err = attributevalue.UnmarshalMap(r.Item, &meta)
			found = true
		case sk == skSnapshot:
			err = attributevalue.UnmarshalMap(r.Item, &snap)
		case i < 2+len(turnIDs):
			var rec turnRecord
			if err = attributevalue.UnmarshalMap(r.Item, &rec); err == nil {
				var t session.Turn
				if t, err = turnFromItem(rec); err == nil {
					st.Turns[t.ID] = t
				}
			}
		case (i-2-len(turnIDs))%2 == 0:
			var rec callRecord
			if err = attributevalue.UnmarshalMap(r.Item, &rec); err == nil {
				st.Calls[rec.CallID] = callFromItem(rec)
			}
		default:
			var rec resultRecord
			if err = attributevalue.UnmarshalMap(r.Item, &rec); err == nil {
				st.Results[rec.CallID] = resultFromItem(rec)
			}
		}
		if err != nil {
			return engine.InputState{}, fmt.Errorf("read inputs of session %s: decode: %w", sessionID, err)
		}
	}
	if !found {
		return engine.InputState{}, fmt.Errorf("get session %s: %w", sessionID, engine.ErrNotFound)
	}
	if snap.Snapshot == "" {
		return engine.InputState{}, fmt.Errorf("get session %s: its configuration snapshot is missing", sessionID)
	}
	if st.Session, err = sessionFromItem(meta, snap); err != nil {
		return engine.InputState{}, err
	}
	return st, nil
}

// readInputsInOrder is ReadInputs for batches too large for one transactional read: consistent reads of the
// Session, then the turns, then the calls, then the results. A result commits in the same transaction as its
// turn's update, so reading turns before results means a turn that counts a call as answered is always read
// together with that call's result.
func (s *Store) readInputsInOrder(ctx context.Context, sessionID string, turnIDs, callIDs []string) (engine.InputState, error) {
	st := engine.InputState{Turns: map[string]session.Turn{}}
	var err error
	if st.Session, err = s.GetSession(ctx, sessionID); err != nil {
		return engine.InputState{}, err
	}
	for _, id := range turnIDs {
		t, err := s.GetTurn(ctx, sessionID, id)
		if errors.Is(err, engine.ErrNotFound) {
			continue
		}
		if err != nil {
			return engine.InputState{}, err
		}
		st.Turns[id] = t
	}
	if st.Calls, err = s.GetCalls(ctx, sessionID, callIDs); err != nil {
		return engine.InputState{}, err
	}
	if st.Results, err = s.GetResults(ctx, sessionID, callIDs); err != nil {
		return engine.InputState{}, err
	}
	return st, nil
}

// distinct returns ids without repeats, in first-seen order.
func distinct(ids []string) []string {
	seen := map[string]bool{}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// GetSessionTurn reads a Session (META and SNAPSHOT) and one of its turns in one BatchGetItem: consistent reads of
// each item, not isolated from each other (engine.PeekTurn, whose use fences on both versions). A missing Session
// or turn is ErrNotFound (wrapped).
func (s *Store) GetSessionTurn(ctx context.Context, sessionID, turnID string) (session.Session, session.Turn, error) {
	ss, t, _, err := s.GetSessionTurnResults(ctx, sessionID, turnID, nil)
	return ss, t, err
}

// GetSessionTurnResults is GetSessionTurn that also reads the stored results of callIDs (RESULT# records; a call
// without a stored result is absent from the map), in the same BatchGetItem while the keys fit one request (more
// keys cost more requests).
func (s *Store) GetSessionTurnResults(ctx context.Context, sessionID, turnID string, callIDs []string) (session.Session, session.Turn, map[string]session.ToolResult, error) {
	pk := sessionPK(sessionID)
	var meta sessionRecord
	var snap snapshotRecord
	var turn turnRecord
	var found, foundTurn bool
	results := map[string]session.ToolResult{}
	keys := []map[string]types.AttributeValue{key(pk, skMeta), key(pk, skSnapshot), key(pk, turnSK(turnID))}
	for _, id := range distinct(callIDs) {
		keys = append(keys, key(pk, resultSK(id)))
	}
	err := s.batchGetKeys(ctx, keys, func(item map[string]types.AttributeValue) error {
		sk := item[SortKey].(*types.AttributeValueMemberS).Value
		switch {
		case sk == skMeta:
			found = true
			return attributevalue.UnmarshalMap(item, &meta)
		case sk == skSnapshot:
			return attributevalue.UnmarshalMap(item, &snap)
		case strings.HasPrefix(sk, resultSK("")):
			var r resultRecord
			if err := attributevalue.UnmarshalMap(item, &r); err != nil {
				return err
			}
			results[r.CallID] = resultFromItem(r)
			return nil
		default:
			foundTurn = true
			return attributevalue.UnmarshalMap(item, &turn)
		}
	})
	if err != nil {
		return session.Session{}, session.Turn{}, nil, fmt.Errorf("get session %s with turn %s: %w", sessionID, turnID, err)
	}
	if !found {
		return session.Session{}, session.Turn{}, nil, fmt.Errorf("get session %s: %w", sessionID, engine.ErrNotFound)
	}
	if !foundTurn {
		return session.Session{}, session.Turn{}, nil, fmt.Errorf("get turn %s of session %s: %w", turnID, sessionID, engine.ErrNotFound)
	}
	if snap.Snapshot == "" {
		return session.Session{}, session.Turn{}, nil, fmt.Errorf("get session %s: its configuration snapshot is missing", sessionID)
	}
	ss, err := sessionFromItem(meta, snap)
	if err != nil {
		return session.Session{}, session.Turn{}, nil, err
	}
	t, err := turnFromItem(turn)
	if err != nil {
		return session.Session{}, session.Turn{}, nil, err
	}
	return ss, t, results, nil
}
