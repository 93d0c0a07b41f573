package dynamo

import (
	"context"
	"strings"

	"errors"
	"fmt"
	"github.com/aws/smithy-go"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/baton-run/baton/shared/agent"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/session"
)

// API is the subset of the DynamoDB client the store uses.
type API interface {
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
	TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error)
}

// Store implements engine.Store on one table. Reads of the partition are strongly consistent; list queries on
// the GSI (agents, sessions, runtimes, unstarted turns) are eventually consistent, as GSIs are.
type Store struct {
	db    API
	table string
}

var _ engine.Store = (*Store)(nil)

// New returns a Store on the named table.
func New(db API, table string) *Store { return &Store{db: db, table: table} }

// idempotencyTTLSeconds is how long Idempotency-Key outcomes are kept (24 h).
const idempotencyTTLSeconds = 24 * 3600

func key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		PartitionKey: &types.AttributeValueMemberS{Value: pk},
		SortKey:      &types.AttributeValueMemberS{Value: sk},
	}
}

func (s *Store) get(ctx context.Context, pk, sk string, out any) error {
	res, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, Key: key(pk, sk), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return fmt.Errorf("get %s %s: %w", pk, sk, err)
	}
	if res.Item == nil {
		return fmt.Errorf("get %s %s: %w", pk, sk, engine.ErrNotFound)
	}
	if err := attributevalue.UnmarshalMap(res.Item, out); err != nil {
		return fmt.Errorf("decode %s %s: %w", pk, sk, err)
	}
	return nil
}

func (s *Store) putNew(ctx context.Context, rec any) error {
	item, err := attributevalue.MarshalMap(rec)
	if err != nil {
		return fmt.Errorf("encode item: %w", err)
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: item, ConditionExpression: aws.String("attribute_not_exists(pk)")})
	return translate(err, "put")
}

// translate maps condition failures to engine.ErrConflict.
func translate(err error, op string) error {
	if err == nil {
		return nil
	}
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return fmt.Errorf("%s: %w", op, engine.ErrConflict)
	}
	// DynamoDB refuses an item over 400 KB or a transaction over 4 MB with a ValidationException about the size.
	var api smithy.APIError
	if errors.As(err, &api) && api.ErrorCode() == "ValidationException" && strings.Contains(strings.ToLower(api.ErrorMessage()), "size") {
		return fmt.Errorf("%s: %w: %w", op, engine.ErrTooLarge, err)
	}
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		for _, r := range tce.CancellationReasons {
			if c := aws.ToString(r.Code); c != "" && c != "None" && c != "ConditionalCheckFailed" && c != "TransactionConflict" {
				return fmt.Errorf("%s: transaction cancelled (%s: %s): %w", op, c, aws.ToString(r.Message), err)
			}
		}
		return fmt.Errorf("%s: %w", op, engine.ErrConflict)
	}
	var tcf *types.TransactionConflictException
	if errors.As(err, &tcf) {
		return fmt.Errorf("%s: %w", op, engine.ErrConflict)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// ProjectForKey implements engine.Store.
func (s *Store) ProjectForKey(ctx context.Context, keyHash string) (string, error) {
	var r keyRecord
	if err := s.get(ctx, "APIKEY#"+keyHash, skMeta, &r); err != nil {
		return "", err
	}
	return r.ProjectID, nil
}

// PutProjectKey implements engine.Store: binds the key hash to the project unless it is bound to another.
func (s *Store) PutProjectKey(ctx context.Context, projectID, keyHash string) error {
	item, err := attributevalue.MarshalMap(keyRecord{PK: "APIKEY#" + keyHash, SK: skMeta, ProjectID: projectID})
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: item,
		ConditionExpression:       aws.String("attribute_not_exists(pk) OR project_id = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: projectID}}})
	return translate(err, "put project key")
}

// CreateAgent implements engine.Store.
func (s *Store) CreateAgent(ctx context.Context, a agent.Agent) error {
	rec, err := agentToItem(a)
	if err != nil {
		return err
	}
	return s.putNew(ctx, rec)
}

// GetAgent implements engine.Store.
func (s *Store) GetAgent(ctx context.Context, agentID string) (agent.Agent, error) {
	var r agentRecord
	if err := s.get(ctx, agentPK(agentID), skMeta, &r); err != nil {
		return agent.Agent{}, err
	}
	return agentFromItem(r)
}

// ReplaceAgent implements engine.Store.
func (s *Store) ReplaceAgent(ctx context.Context, a agent.Agent) error {
	rec, err := agentToItem(a)
	if err != nil {
		return err
	}
	item, err := attributevalue.MarshalMap(rec)
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: item,
		ConditionExpression:       aws.String("attribute_exists(pk) AND project_id = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: a.ProjectID}}})
	if err = translate(err, "replace agent "+a.ID); errors.Is(err, engine.ErrConflict) {
		return fmt.Errorf("replace agent %s: %w", a.ID, engine.ErrNotFound)
	}
	return err
}

// DeleteAgent implements engine.Store.
func (s *Store) DeleteAgent(ctx context.Context, projectID, agentID string) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: key(agentPK(agentID), skMeta),
		ConditionExpression:       aws.String("attribute_exists(pk) AND project_id = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: projectID}}})
	if err = translate(err, "delete agent "+agentID); errors.Is(err, engine.ErrConflict) {
		return fmt.Errorf("delete agent %s: %w", agentID, engine.ErrNotFound)
	}
	return err
}

// queryPage runs a paged query (limit+1 to learn has_more, looping while a filter leaves pages short) and
// decodes each record with decode.
func (s *Store) queryPage(ctx context.Context, in *dynamodb.QueryInput, limit int, decode func(map[string]types.AttributeValue) error) (bool, error) {
	if limit <= 0 {
		limit = 20
	}
	n := 0
	for {
		in.Limit = aws.Int32(int32(limit + 1 - n))
		if in.FilterExpression != nil {
			in.Limit = aws.Int32(100)
		}
		out, err := s.db.Query(ctx, in)
		if err != nil {
			return false, fmt.Errorf("query: %w", err)
		}
		for _, item := range out.Items {
			if n == limit {
				return true, nil
			}
			if err := decode(item); err != nil {
				return false, err
			}
			n++
		}
		if out.LastEvaluatedKey == nil {
			return false, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func forward(order string) *bool { return aws.Bool(order == "asc") }

// ListAgents implements engine.Store (by creation: agent ids sort by creation time).
func (s *Store) ListAgents(ctx context.Context, projectID string, p engine.Page) ([]agent.Agent, bool, error) {
	in := &dynamodb.QueryInput{TableName: &s.table, IndexName: aws.String(GSI1Name),
		KeyConditionExpression:    aws.String("gsi1pk = :g"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":g": &types.AttributeValueMemberS{Value: projectAgentsGSI(projectID)}},
		ScanIndexForward:          forward(p.Order)}
	if p.After != "" {
		in.ExclusiveStartKey = map[string]types.AttributeValue{
			GSI1PartitionKey: &types.AttributeValueMemberS{Value: projectAgentsGSI(projectID)},
			GSI1SortKey:      &types.AttributeValueMemberS{Value: p.After},
			PartitionKey:     &types.AttributeValueMemberS{Value: agentPK(p.After)},
			SortKey:          &types.AttributeValueMemberS{Value: skMeta},
		}
	}
	var out []agent.Agent
	more, err := s.queryPage(ctx, in, p.Limit, func(item map[string]types.AttributeValue) error {
		var r agentRecord
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return err
		}
		a, err := agentFromItem(r)
		out = append(out, a)
		return err
	})
	return out, more, err
}

// GetSession implements engine.Store: the META and SNAPSHOT items of the session partition.
func (s *Store) GetSession(ctx context.Context, sessionID string) (session.Session, error) {
	// Two keys, read by key: no read of the Session may depend on how much else its partition holds (results,
	// items and events sort between META and SNAPSHOT).
	var items []map[string]types.AttributeValue
	err := s.batchGetKeys(ctx, []map[string]types.AttributeValue{key(sessionPK(sessionID), skMeta), key(sessionPK(sessionID), skSnapshot)},
		func(item map[string]types.AttributeValue) error { items = append(items, item); return nil })
	if err != nil {
		return session.Session{}, fmt.Errorf("get session %s: %w", sessionID, err)
	}
	var meta sessionRecord
	var snap snapshotRecord
	found := false
	for _, item := range items {
		switch item[SortKey].(*types.AttributeValueMemberS).Value {
		case skMeta:
			if err := attributevalue.UnmarshalMap(item, &meta); err != nil {
				return session.Session{}, fmt.Errorf("decode session %s: %w", sessionID, err)
			}
			found = true
		case skSnapshot:
			if err := attributevalue.UnmarshalMap(item, &snap); err != nil {
				return session.Session{}, fmt.Errorf("decode session %s snapshot: %w", sessionID, err)
			}
		}
	}
	if !found {
		return session.Session{}, fmt.Errorf("get session %s: %w", sessionID, engine.ErrNotFound)
	}
	if snap.Snapshot == "" {
		// Written in the same transaction as META: never answer with an empty configuration.
		return session.Session{}, fmt.Errorf("get session %s: its configuration snapshot is missing", sessionID)
	}
	return sessionFromItem(meta, snap)
}

// ListSessions implements engine.Store; agentID "" lists all, otherwise only sessions of that saved agent.
// Deleted sessions are skipped. Sessions come from the (eventually consistent) index, their snapshots in batches.
func (s *Store) ListSessions(ctx context.Context, projectID, agentID string, p engine.Page) ([]session.Session, bool, error) {
	in := &dynamodb.QueryInput{TableName: &s.table, IndexName: aws.String(GSI1Name),
		KeyConditionExpression: aws.String("gsi1pk = :g"),
		FilterExpression:       aws.String("deleted = :f"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":g": &types.AttributeValueMemberS{Value: projectSessionsGSI(projectID)},
			":f": &types.AttributeValueMemberBOOL{Value: false},
		},
		ScanIndexForward: forward(p.Order)}
	filter := "deleted = :f"
	if agentID != "" {
		filter += " AND agent_id = :a"
		in.ExpressionAttributeValues[":a"] = &types.AttributeValueMemberS{Value: agentID}
	}
	if len(p.Metadata) > 0 {
		in.ExpressionAttributeNames = map[string]string{"#md": "metadata"}
		keys := make([]string, 0, len(p.Metadata))
		for k := range p.Metadata {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			name, value := fmt.Sprintf("#mk%d", i), fmt.Sprintf(":mv%d", i)
			in.ExpressionAttributeNames[name] = k
			in.ExpressionAttributeValues[value] = &types.AttributeValueMemberS{Value: p.Metadata[k]}
			filter += " AND #md." + name + " = " + value
		}
	}
	in.FilterExpression = aws.String(filter)
	if p.After != "" {
		in.ExclusiveStartKey = map[string]types.AttributeValue{
			GSI1PartitionKey: &types.AttributeValueMemberS{Value: projectSessionsGSI(projectID)},
			GSI1SortKey:      &types.AttributeValueMemberS{Value: p.After},
			PartitionKey:     &types.AttributeValueMemberS{Value: sessionPK(p.After)},
			SortKey:          &types.AttributeValueMemberS{Value: skMeta},
		}
	}
	var metas []sessionRecord
	more, err := s.queryPage(ctx, in, p.Limit, func(item map[string]types.AttributeValue) error {
		var r sessionRecord
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return err
		}
		metas = append(metas, r)
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	// The index projects the META items; the snapshots are read strongly consistent, as a session the index already
	// shows may have been written a moment ago.
	keys := make([]map[string]types.AttributeValue, len(metas))
	for i, m := range metas {
		keys[i] = key(m.PK, skSnapshot)
	}
	snaps := map[string]snapshotRecord{}
	err = s.batchGetKeys(ctx, keys, func(item map[string]types.AttributeValue) error {
		var r snapshotRecord
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return err
		}
		snaps[r.PK] = r
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("list sessions: snapshots: %w", err)
	}
	out := make([]session.Session, 0, len(metas))
	for _, m := range metas {
		ss, err := sessionFromItem(m, snaps[m.PK])
		if err != nil {
			return nil, false, err
		}
		out = append(out, ss)
	}
	return out, more, nil
}

// GetTurn implements engine.Store.
func (s *Store) GetTurn(ctx context.Context, sessionID, turnID string) (session.Turn, error) {
	var r turnRecord
	if err := s.get(ctx, sessionPK(sessionID), turnSK(turnID), &r); err != nil {
		return session.Turn{}, err
	}
	return turnFromItem(r)
}

// ListTurns implements engine.Store (turn ids sort by creation time).
func (s *Store) ListTurns(ctx context.Context, sessionID string, p engine.Page) ([]session.Turn, bool, error) {
	in := &dynamodb.QueryInput{TableName: &s.table, ConsistentRead: aws.Bool(true),
		KeyConditionExpression: aws.String("pk = :pk AND begins_with(sk, :t)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: sessionPK(sessionID)},
			":t":  &types.AttributeValueMemberS{Value: "TURN#"},
		},
		ScanIndexForward: forward(p.Order)}
	if p.After != "" {
		in.ExclusiveStartKey = key(sessionPK(sessionID), turnSK(p.After))
	}
	var out []session.Turn
	more, err := s.queryPage(ctx, in, p.Limit, func(item map[string]types.AttributeValue) error {
		var r turnRecord
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return err
		}
		t, err := turnFromItem(r)
		out = append(out, t)
		return err
	})
	return out, more, err
}

// ListItems implements engine.Store: items by seq; p.After is an item id whose embedded seq is the cursor.
func (s *Store) ListItems(ctx context.Context, sessionID, turnID string, p engine.Page) ([]session.Item, bool, error) {
	in := &dynamodb.QueryInput{TableName: &s.table, ConsistentRead: aws.Bool(true),
		KeyConditionExpression: aws.String("pk = :pk AND begins_with(sk, :i)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: sessionPK(sessionID)},
			":i":  &types.AttributeValueMemberS{Value: "ITEM#"},
		},
		ScanIndexForward: forward(p.Order)}
	if turnID != "" {
		in.FilterExpression = aws.String("turn_id = :t")
		in.ExpressionAttributeValues[":t"] = &types.AttributeValueMemberS{Value: turnID}
	}
	if p.After != "" {
		seq, ok := engine.SeqOfID(p.After)
		if !ok {
			return nil, false, fmt.Errorf("list items: bad cursor: %w", engine.ErrNotFound)
		}
		in.ExclusiveStartKey = key(sessionPK(sessionID), itemSK(seq))
	}
	var out []session.Item
	more, err := s.queryPage(ctx, in, p.Limit, func(item map[string]types.AttributeValue) error {
		var r itemRecord
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return err
		}
		it, err := itemFromItem(r)
		out = append(out, it)
		return err
	})
	return out, more, err
}

// ItemsOfSession implements engine.Store.
func (s *Store) ItemsOfSession(ctx context.Context, sessionID string) ([]session.Item, error) {
	in := &dynamodb.QueryInput{TableName: &s.table, ConsistentRead: aws.Bool(true),
		KeyConditionExpression: aws.String("pk = :pk AND begins_with(sk, :i)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: sessionPK(sessionID)},
			":i":  &types.AttributeValueMemberS{Value: "ITEM#"},
		}}
	var out []session.Item
	for {
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("items of session %s: %w", sessionID, err)
		}
		for _, item := range res.Items {
			var r itemRecord
			if err := attributevalue.UnmarshalMap(item, &r); err != nil {
				return nil, err
			}
			it, err := itemFromItem(r)
			if err != nil {
				return nil, err
			}
			out = append(out, it)
		}
		if res.LastEvaluatedKey == nil {
			return out, nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
}

// EventsAfter implements engine.Store.
func (s *Store) EventsAfter(ctx context.Context, sessionID string, after int64, limit int) ([]session.Event, error) {
	if limit <= 0 {
		limit = 100
	}
	res, err := s.db.Query(ctx, &dynamodb.QueryInput{TableName: &s.table, ConsistentRead: aws.Bool(true),
		KeyConditionExpression: aws.String("pk = :pk AND sk BETWEEN :a AND :b"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: sessionPK(sessionID)},
			":a":  &types.AttributeValueMemberS{Value: eventSK(after + 1)},
			":b":  &types.AttributeValueMemberS{Value: "EVENT#~"},
		},
		Limit: aws.Int32(int32(limit))})
	if err != nil {
		return nil, fmt.Errorf("events of session %s after %d: %w", sessionID, after, err)
	}
	out := make([]session.Event, 0, len(res.Items))
	for _, item := range res.Items {
		var r eventRecord
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return nil, err
		}
		evs, err := expandEvents(r, after)
		if err != nil {
			return nil, err
		}
		out = append(out, evs...)
	}
	if len(out) > limit {
		out = out[:limit] // the rest of a pack is read again from the last returned sequence
	}
	return out, nil
}

// batchGet reads the items of one session partition whose sort keys sk(id) builds, in strongly consistent
// batches; missing items are skipped.
func (s *Store) batchGet(ctx context.Context, sessionID string, ids []string, sk func(string) string, decode func(map[string]types.AttributeValue) error) error {
	seen := map[string]bool{}
	var keys []map[string]types.AttributeValue
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			keys = append(keys, key(sessionPK(sessionID), sk(id)))
		}
	}
	return s.batchGetKeys(ctx, keys, decode)
}

// batchGetKeys reads distinct keys, strongly consistent, in BatchGetItem calls of at most 100, retrying unprocessed keys; missing items
// are skipped.
func (s *Store) batchGetKeys(ctx context.Context, keys []map[string]types.AttributeValue, decode func(map[string]types.AttributeValue) error) error {
	for len(keys) > 0 {
		n := min(len(keys), 100)
		req := map[string]types.KeysAndAttributes{s.table: {Keys: keys[:n], ConsistentRead: aws.Bool(true)}}
		keys = keys[n:]
		for len(req) > 0 {
			out, err := s.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
			if err != nil {
				return fmt.Errorf("batch get: %w", err)
			}
			for _, item := range out.Responses[s.table] {
				if err := decode(item); err != nil {
					return err
				}
			}
			req = out.UnprocessedKeys
		}
	}
	return nil
}

// GetCalls implements engine.Store; unknown ids are absent from the map.
func (s *Store) GetCalls(ctx context.Context, sessionID string, callIDs []string) (map[string]session.Call, error) {
	out := map[string]session.Call{}
	err := s.batchGet(ctx, sessionID, callIDs, callSK, func(item map[string]types.AttributeValue) error {
		var r callRecord
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return err
		}
		out[r.CallID] = callFromItem(r)
		return nil
	})
	return out, err
}

// GetResults implements engine.Store; calls without a result are absent from the map.
func (s *Store) GetResults(ctx context.Context, sessionID string, callIDs []string) (map[string]session.ToolResult, error) {
	out := map[string]session.ToolResult{}
	err := s.batchGet(ctx, sessionID, callIDs, resultSK, func(item map[string]types.AttributeValue) error {
		var r resultRecord
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return err
		}
		out[r.CallID] = resultFromItem(r)
		return nil
	})
	return out, err
}

// GetIdempotency implements engine.Store.
func (s *Store) GetIdempotency(ctx context.Context, k string) (engine.Idempotency, error) {
	var r idempotencyRecord
	if err := s.get(ctx, "IDEMPOTENCY#"+k, skMeta, &r); err != nil {
		return engine.Idempotency{}, err
	}
	return engine.Idempotency{Key: k, RequestHash: r.RequestHash, Response: r.Response, CreatedAt: r.CreatedAt}, nil
}

// MarkedTurns implements engine.Store: it pages through the GSI partition of the mark (gsi1pk = UNSTARTED,
// ACTIVE or RESUMING; eventually consistent) and calls visit for each turn, oldest first, until visit returns an
// error or the partition ends.
func (s *Store) MarkedTurns(ctx context.Context, mark session.Mark, visit func(session.Turn) error) error {
	if mark == session.MarkNone {
		return fmt.Errorf("marked turns: no mark")
	}
	in := &dynamodb.QueryInput{TableName: &s.table, IndexName: aws.String(GSI1Name),
		KeyConditionExpression:    aws.String("gsi1pk = :g"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":g": &types.AttributeValueMemberS{Value: string(mark)}}}
	for {
		out, err := s.db.Query(ctx, in)
		if err != nil {
			return fmt.Errorf("turns marked %s: %w", mark, err)
		}
		for _, item := range out.Items {
			var r turnRecord
			if err := attributevalue.UnmarshalMap(item, &r); err != nil {
				return err
			}
			t, err := turnFromItem(r)
			if err != nil {
				return err
			}
			if err := visit(t); err != nil {
				return err
			}
		}
		if out.LastEvaluatedKey == nil {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// PutRuntime implements engine.Store.
func (s *Store) PutRuntime(ctx context.Context, r engine.RuntimeInfo) error {
	rec, err := runtimeToItem(r)
	if err != nil {
		return err
	}
	item, err := attributevalue.MarshalMap(rec)
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: item})
	return translate(err, "put runtime "+r.ID)
}

// ListRuntimes implements engine.Store: every registration still stored (expired ones included until TTL
// deletes them; engine.LiveRuntimes filters).
func (s *Store) ListRuntimes(ctx context.Context) ([]engine.RuntimeInfo, error) {
	in := &dynamodb.QueryInput{TableName: &s.table, IndexName: aws.String(GSI1Name),
		KeyConditionExpression:    aws.String("gsi1pk = :g"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":g": &types.AttributeValueMemberS{Value: gsiRuntimes}}}
	var out []engine.RuntimeInfo
	_, err := s.queryPage(ctx, in, 1000, func(item map[string]types.AttributeValue) error {
		var r runtimeRecord
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return err
		}
		var info engine.RuntimeInfo
		if err := jsonUnmarshal(r.Doc, &info); err != nil {
			return err
		}
		out = append(out, info)
		return nil
	})
	return out, err
}
