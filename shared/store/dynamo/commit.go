package dynamo

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/baton-run/baton/shared/jsonwire"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/baton-run/baton/shared/engine"
)

// MaxCommitActions is DynamoDB's limit on the actions of one TransactWriteItems.
const MaxCommitActions = 100

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// Commit implements engine.Store: one TransactWriteItems in which the session META and each turn are replaced on
// condition of their stored version (`attribute_not_exists(pk)` for version 0) and every other record is created
// with `attribute_not_exists(pk)` (items with Replace overwrite); events that do not fit one item each are written as
// event packs (eventpack.go), so a batch of 64 messages stays one transaction. Returns engine.ErrConflict when any condition
// fails or the transaction conflicts with another; an error when the commit exceeds MaxCommitActions.
func (s *Store) Commit(ctx context.Context, c engine.Commit) error {
	var ops []types.TransactWriteItem
	put := func(rec any, cond string, values map[string]types.AttributeValue) error {
		item, err := attributevalue.MarshalMap(rec)
		if err != nil {
			return fmt.Errorf("commit: encode: %w", err)
		}
		p := &types.Put{TableName: &s.table, Item: item}
		if cond != "" {
			p.ConditionExpression = aws.String(cond)
			p.ExpressionAttributeValues = values
		}
		ops = append(ops, types.TransactWriteItem{Put: p})
		return nil
	}
	versioned := func(rec any, version int64) error {
		if version == 0 {
			return put(rec, "attribute_not_exists(pk)", nil)
		}
		return put(rec, "version = :v", map[string]types.AttributeValue{":v": &types.AttributeValueMemberN{Value: strconv.FormatInt(version, 10)}})
	}
	if c.Session != nil {
		rec, err := sessionToItem(*c.Session, c.SessionVersion+1)
		if err != nil {
			return err
		}
		if err := versioned(rec, c.SessionVersion); err != nil {
			return err
		}
		if c.SessionVersion == 0 {
			snap, err := jsonwire.Marshal(c.Session.Snapshot)
			if err != nil {
				return fmt.Errorf("commit: encode snapshot: %w", err)
			}
			if err := put(snapshotRecord{PK: sessionPK(c.Session.ID), SK: skSnapshot, Snapshot: string(snap)}, "attribute_not_exists(pk)", nil); err != nil {
				return err
			}
		}
	}
	for _, tw := range c.Turns {
		if tw.CheckOnly {
			// A fence, not a write: no reconciler index entry is touched.
			ops = append(ops, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: &s.table,
				Key: map[string]types.AttributeValue{
					"pk": &types.AttributeValueMemberS{Value: sessionPK(tw.Turn.SessionID)},
					"sk": &types.AttributeValueMemberS{Value: turnSK(tw.Turn.ID)},
				},
				ConditionExpression:       aws.String("version = :v"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberN{Value: strconv.FormatInt(tw.Version, 10)}},
			}})
			continue
		}
		rec, err := turnToItem(tw.Turn, tw.Version+1)
		if err != nil {
			return err
		}
		if err := versioned(rec, tw.Version); err != nil {
			return err
		}
	}
	for _, iw := range c.Items {
		rec, err := itemToItem(iw.SessionID, iw.Item)
		if err != nil {
			return err
		}
		cond := "attribute_not_exists(pk)"
		if iw.Replace {
			cond = "attribute_exists(pk)"
		}
		if err := put(rec, cond, nil); err != nil {
			return err
		}
	}
	sessionID := c.SessionID
	if c.Session != nil {
		sessionID = c.Session.ID
	} else if len(c.Turns) > 0 {
		sessionID = c.Turns[0].Turn.SessionID
	}
	for _, call := range c.Calls {
		if err := put(callToItem(sessionID, call), "attribute_not_exists(pk)", nil); err != nil {
			return err
		}
	}
	for _, r := range c.Results {
		if err := put(resultToItem(sessionID, r), "attribute_not_exists(pk)", nil); err != nil {
			return err
		}
	}
	if c.Idempotency != nil {
		rec := idempotencyRecord{PK: "IDEMPOTENCY#" + c.Idempotency.Key, SK: skMeta, RequestHash: c.Idempotency.RequestHash,
			Response: c.Idempotency.Response, CreatedAt: c.Idempotency.CreatedAt, ExpiresAt: c.Idempotency.CreatedAt + idempotencyTTLSeconds}
		if err := put(rec, "attribute_not_exists(pk)", nil); err != nil {
			return err
		}
	}
	// Events go last: one item each when they fit in the transaction, else packs of consecutive events.
	events, err := packEvents(sessionID, c.Events, MaxCommitActions-len(ops))
	if err != nil {
		return err
	}
	for _, rec := range events {
		if err := put(rec, "attribute_not_exists(pk)", nil); err != nil {
			return err
		}
	}
	if len(ops) == 0 {
		return nil
	}
	if len(ops) > MaxCommitActions {
		return fmt.Errorf("commit: %d writes exceed the transaction limit of %d", len(ops), MaxCommitActions)
	}
	if len(ops) == 1 && ops[0].Put != nil {
		p := ops[0].Put
		_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: p.TableName, Item: p.Item, ConditionExpression: p.ConditionExpression, ExpressionAttributeValues: p.ExpressionAttributeValues})
		return translate(err, "commit")
	}
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: ops})
	return translate(err, "commit")
}
