package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/baton-run/baton/shared/agentcore/handoff"
	"github.com/baton-run/baton/shared/engine"
)

// AgentCore runtime sessions: `AGENTCORE_SESSION#<key>` / `META`, key = handoff.Key(project, harness ARN,
// qualifier, runtimeSessionId) (docs/agentcore.md §3.4).
func runtimeSessionPK(key string) string { return "AGENTCORE_SESSION#" + key }

type runtimeSessionRecord struct {
	PK               string `dynamodbav:"pk"`
	SK               string `dynamodbav:"sk"`
	ProjectID        string `dynamodbav:"project_id"`
	HarnessARN       string `dynamodbav:"harness_arn"`
	Qualifier        string `dynamodbav:"qualifier"`
	RuntimeSessionID string `dynamodbav:"runtime_session_id"`
	SessionID        string `dynamodbav:"session_id"`
	CreatedAt        int64  `dynamodbav:"created_at"`
	LastClaim        string `dynamodbav:"last_claim,omitempty"`
}

// GetRuntimeSession returns the mapping stored under key, or engine.ErrNotFound (wrapped).
func (s *Store) GetRuntimeSession(ctx context.Context, k string) (handoff.RuntimeSession, error) {
	var r runtimeSessionRecord
	if err := s.get(ctx, runtimeSessionPK(k), skMeta, &r); err != nil {
		return handoff.RuntimeSession{}, err
	}
	return handoff.RuntimeSession{Key: k, ProjectID: r.ProjectID, HarnessARN: r.HarnessARN, Qualifier: r.Qualifier,
		RuntimeSessionID: r.RuntimeSessionID, SessionID: r.SessionID, CreatedAt: r.CreatedAt, LastClaim: r.LastClaim}, nil
}

// CreateRuntimeSession stores a new mapping; engine.ErrConflict (wrapped) when the key already has one.
func (s *Store) CreateRuntimeSession(ctx context.Context, rs handoff.RuntimeSession) error {
	return s.putNew(ctx, runtimeSessionRecord{PK: runtimeSessionPK(rs.Key), SK: skMeta, ProjectID: rs.ProjectID,
		HarnessARN: rs.HarnessARN, Qualifier: rs.Qualifier, RuntimeSessionID: rs.RuntimeSessionID, SessionID: rs.SessionID,
		CreatedAt: rs.CreatedAt})
}

// ClaimPause sets the mapping's last claim to claim on condition that it is not claim already; engine.ErrConflict
// (wrapped) when another request claimed the same pause first.
func (s *Store) ClaimPause(ctx context.Context, k, claim string) error {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(runtimeSessionPK(k), skMeta),
		UpdateExpression:          aws.String("SET last_claim = :c"),
		ConditionExpression:       aws.String("attribute_exists(pk) AND (attribute_not_exists(last_claim) OR last_claim <> :c)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":c": &types.AttributeValueMemberS{Value: claim}},
	})
	return translate(err, fmt.Sprintf("claim pause %s", claim))
}

// ReleasePause removes the mapping's last claim if it is still claim (a follow-up whose results could not be
// stored gives the pause back); releasing a claim that is gone is not an error.
func (s *Store) ReleasePause(ctx context.Context, k, claim string) error {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(runtimeSessionPK(k), skMeta),
		UpdateExpression:          aws.String("REMOVE last_claim"),
		ConditionExpression:       aws.String("last_claim = :c"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":c": &types.AttributeValueMemberS{Value: claim}},
	})
	if err = translate(err, fmt.Sprintf("release pause %s", claim)); err != nil && !errors.Is(err, engine.ErrConflict) {
		return err
	}
	return nil
}
