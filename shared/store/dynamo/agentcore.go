package dynamo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/baton-run/baton/shared/engine"
)

// AgentCore keys (docs/internals.md "The table"):
//   - harness record: `HARNESSES#<project>` / `HARNESS#<harnessId>` (one partition per project, so lists are
//     strongly consistent queries);
//   - its versions and endpoints: `HARNESS#<project>#<harnessId>` / `VERSION#<10-digit version>` | `ENDPOINT#<name>`;
//   - the unique-name claim: `HARNESSNAME#<project>#<harnessName>` / `META`;
//   - access keys: `ACCESSKEY#<id>` / `META`; API-key credential providers: `APIKEYPROVIDERS#<project>` /
//     `PROVIDER#<name>` (secrets sealed by the engine, stored as binary).
func harnessesPK(p string) string         { return "HARNESSES#" + p }
func harnessSK(id string) string          { return "HARNESS#" + id }
func harnessPK(p, id string) string       { return "HARNESS#" + p + "#" + id }
func harnessVersionSK(v int64) string     { return fmt.Sprintf("VERSION#%010d", v) }
func harnessEndpointSK(n string) string   { return "ENDPOINT#" + n }
func harnessNamePK(p, name string) string { return "HARNESSNAME#" + p + "#" + name }
func accessKeyPK(id string) string        { return "ACCESSKEY#" + id }
func providersPK(p string) string         { return "APIKEYPROVIDERS#" + p }
func providerSK(n string) string          { return "PROVIDER#" + n }

var _ engine.AgentCoreStore = (*Store)(nil)

type harnessRecord struct {
	PK            string `dynamodbav:"pk"`
	SK            string `dynamodbav:"sk"`
	ProjectID     string `dynamodbav:"project_id"`
	ID            string `dynamodbav:"id"`
	Name          string `dynamodbav:"name"`
	ARN           string `dynamodbav:"arn"`
	Status        string `dynamodbav:"status"`
	LatestVersion int64  `dynamodbav:"latest_version"`
	Config        string `dynamodbav:"config"`
	CreatedAt     int64  `dynamodbav:"created_at"`
	UpdatedAt     int64  `dynamodbav:"updated_at"`
	Revision      int64  `dynamodbav:"revision"`
}

func harnessToItem(h engine.Harness) harnessRecord {
	return harnessRecord{PK: harnessesPK(h.ProjectID), SK: harnessSK(h.ID), ProjectID: h.ProjectID, ID: h.ID, Name: h.Name, ARN: h.ARN,
		Status: h.Status, LatestVersion: h.LatestVersion, Config: string(h.Config), CreatedAt: h.CreatedAt, UpdatedAt: h.UpdatedAt, Revision: h.Revision}
}

func harnessFromItem(r harnessRecord) engine.Harness {
	return engine.Harness{ProjectID: r.ProjectID, ID: r.ID, Name: r.Name, ARN: r.ARN, Status: r.Status, Version: r.LatestVersion,
		LatestVersion: r.LatestVersion, Config: json.RawMessage(r.Config), CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Revision: r.Revision}
}

type harnessVersionRecord struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	ProjectID string `dynamodbav:"project_id"`
	HarnessID string `dynamodbav:"harness_id"`
	Version   int64  `dynamodbav:"version"`
	Config    string `dynamodbav:"config"`
	CreatedAt int64  `dynamodbav:"created_at"`
}

func versionToItem(v engine.HarnessVersion) harnessVersionRecord {
	return harnessVersionRecord{PK: harnessPK(v.ProjectID, v.HarnessID), SK: harnessVersionSK(v.Version), ProjectID: v.ProjectID,
		HarnessID: v.HarnessID, Version: v.Version, Config: string(v.Config), CreatedAt: v.CreatedAt}
}

func versionFromItem(r harnessVersionRecord) engine.HarnessVersion {
	return engine.HarnessVersion{ProjectID: r.ProjectID, HarnessID: r.HarnessID, Version: r.Version, Config: json.RawMessage(r.Config), CreatedAt: r.CreatedAt}
}

type harnessEndpointRecord struct {
	PK            string  `dynamodbav:"pk"`
	SK            string  `dynamodbav:"sk"`
	ProjectID     string  `dynamodbav:"project_id"`
	HarnessID     string  `dynamodbav:"harness_id"`
	Name          string  `dynamodbav:"name"`
	Status        string  `dynamodbav:"status"`
	TargetVersion int64   `dynamodbav:"target_version"`
	LiveVersion   int64   `dynamodbav:"live_version"`
	Description   *string `dynamodbav:"description"`
	CreatedAt     int64   `dynamodbav:"created_at"`
	UpdatedAt     int64   `dynamodbav:"updated_at"`
	Revision      int64   `dynamodbav:"revision"`
}

func endpointToItem(e engine.HarnessEndpoint) harnessEndpointRecord {
	return harnessEndpointRecord{PK: harnessPK(e.ProjectID, e.HarnessID), SK: harnessEndpointSK(e.Name), ProjectID: e.ProjectID, HarnessID: e.HarnessID,
		Name: e.Name, Status: e.Status, TargetVersion: e.TargetVersion, LiveVersion: e.LiveVersion, Description: e.Description,
		CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt, Revision: e.Revision}
}

func endpointFromItem(r harnessEndpointRecord) engine.HarnessEndpoint {
	return engine.HarnessEndpoint{ProjectID: r.ProjectID, HarnessID: r.HarnessID, Name: r.Name, Status: r.Status, TargetVersion: r.TargetVersion,
		LiveVersion: r.LiveVersion, Description: r.Description, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Revision: r.Revision}
}

type nameClaimRecord struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	HarnessID string `dynamodbav:"harness_id"`
}

type accessKeyRecord struct {
	PK           string `dynamodbav:"pk"`
	SK           string `dynamodbav:"sk"`
	ID           string `dynamodbav:"id"`
	ProjectID    string `dynamodbav:"project_id"`
	SealedSecret []byte `dynamodbav:"sealed_secret"`
	CreatedAt    int64  `dynamodbav:"created_at"`
}

type providerRecord struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	ProjectID string `dynamodbav:"project_id"`
	Name      string `dynamodbav:"name"`
	SealedKey []byte `dynamodbav:"sealed_key"`
	CreatedAt int64  `dynamodbav:"created_at"`
	UpdatedAt int64  `dynamodbav:"updated_at"`
	Revision  int64  `dynamodbav:"revision"`
}

// tx accumulates the actions of one transaction.
type tx struct {
	table string
	ops   []types.TransactWriteItem
	err   error
}

func (t *tx) put(rec any, cond string, values map[string]types.AttributeValue) {
	if t.err != nil {
		return
	}
	item, err := attributevalue.MarshalMap(rec)
	if err != nil {
		t.err = fmt.Errorf("encode item: %w", err)
		return
	}
	p := &types.Put{TableName: &t.table, Item: item}
	if cond != "" {
		p.ConditionExpression = aws.String(cond)
		p.ExpressionAttributeValues = values
	}
	t.ops = append(t.ops, types.TransactWriteItem{Put: p})
}

func (t *tx) del(pk, sk, cond string, values map[string]types.AttributeValue) {
	d := &types.Delete{TableName: &t.table, Key: key(pk, sk)}
	if cond != "" {
		d.ConditionExpression = aws.String(cond)
		d.ExpressionAttributeValues = values
	}
	t.ops = append(t.ops, types.TransactWriteItem{Delete: d})
}

func (t *tx) check(pk, sk, cond string) {
	t.ops = append(t.ops, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: &t.table, Key: key(pk, sk), ConditionExpression: aws.String(cond)}})
}

func (t *tx) idempotency(idem *engine.Idempotency) {
	if idem == nil {
		return
	}
	t.put(idempotencyRecord{PK: "IDEMPOTENCY#" + idem.Key, SK: skMeta, RequestHash: idem.RequestHash, Response: idem.Response,
		CreatedAt: idem.CreatedAt, ExpiresAt: idem.CreatedAt + idempotencyTTLSeconds}, "attribute_not_exists(pk)", nil)
}

func (s *Store) run(ctx context.Context, t *tx, op string) error {
	if t.err != nil {
		return t.err
	}
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: t.ops})
	return translate(err, op)
}

func revisionIs(r int64) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{":r": &types.AttributeValueMemberN{Value: strconv.FormatInt(r, 10)}}
}

// CreateHarness implements engine.AgentCoreStore.
func (s *Store) CreateHarness(ctx context.Context, h engine.Harness, v engine.HarnessVersion, idem *engine.Idempotency) error {
	t := &tx{table: s.table}
	t.put(harnessToItem(h), "attribute_not_exists(pk)", nil)
	t.put(nameClaimRecord{PK: harnessNamePK(h.ProjectID, h.Name), SK: skMeta, HarnessID: h.ID}, "attribute_not_exists(pk)", nil)
	t.put(versionToItem(v), "attribute_not_exists(pk)", nil)
	t.idempotency(idem)
	return s.run(ctx, t, "create harness "+h.ID)
}

// GetHarness implements engine.AgentCoreStore.
func (s *Store) GetHarness(ctx context.Context, projectID, harnessID string) (engine.Harness, error) {
	var r harnessRecord
	if err := s.get(ctx, harnessesPK(projectID), harnessSK(harnessID), &r); err != nil {
		return engine.Harness{}, err
	}
	return harnessFromItem(r), nil
}

// queryPrefix reads up to limit items of pk whose sort key begins with prefix, after the sort key `after`.
func (s *Store) queryPrefix(ctx context.Context, pk, prefix, after string, limit int, decode func(map[string]types.AttributeValue) error) (bool, error) {
	in := &dynamodb.QueryInput{TableName: &s.table, ConsistentRead: aws.Bool(true),
		KeyConditionExpression: aws.String("pk = :p AND begins_with(sk, :s)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":p": &types.AttributeValueMemberS{Value: pk},
			":s": &types.AttributeValueMemberS{Value: prefix},
		}}
	if after != "" {
		in.ExclusiveStartKey = key(pk, after)
	}
	n := 0
	for {
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return false, fmt.Errorf("query %s: %w", pk, err)
		}
		for _, item := range res.Items {
			if n == limit {
				return true, nil
			}
			if err := decode(item); err != nil {
				return false, err
			}
			n++
		}
		if res.LastEvaluatedKey == nil {
			return false, nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
}

// ListHarnesses implements engine.AgentCoreStore.
func (s *Store) ListHarnesses(ctx context.Context, projectID, after string, limit int) ([]engine.Harness, string, error) {
	var out []engine.Harness
	startSK := ""
	if after != "" {
		startSK = harnessSK(after)
	}
	more, err := s.queryPrefix(ctx, harnessesPK(projectID), "HARNESS#", startSK, limit, func(item map[string]types.AttributeValue) error {
		var r harnessRecord
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return err
		}
		out = append(out, harnessFromItem(r))
		return nil
	})
	if err != nil || !more || len(out) == 0 {
		return out, "", err
	}
	return out, out[len(out)-1].ID, nil
}

// UpdateHarness implements engine.AgentCoreStore.
func (s *Store) UpdateHarness(ctx context.Context, h engine.Harness, v engine.HarnessVersion, idem *engine.Idempotency) error {
	t := &tx{table: s.table}
	t.put(harnessToItem(h), "revision = :r", revisionIs(h.Revision-1))
	t.put(versionToItem(v), "attribute_not_exists(pk)", nil)
	t.idempotency(idem)
	return s.run(ctx, t, "update harness "+h.ID)
}

// DeleteHarness implements engine.AgentCoreStore: one transaction removes the harness record and its name claim
// (so the harness is gone at once); its versions and endpoints are deleted after, unreachable already.
func (s *Store) DeleteHarness(ctx context.Context, h engine.Harness, idem *engine.Idempotency) error {
	t := &tx{table: s.table}
	t.del(harnessesPK(h.ProjectID), harnessSK(h.ID), "revision = :r", revisionIs(h.Revision))
	t.del(harnessNamePK(h.ProjectID, h.Name), skMeta, "", nil)
	t.idempotency(idem)
	if err := s.run(ctx, t, "delete harness "+h.ID); err != nil {
		return err
	}
	pk := harnessPK(h.ProjectID, h.ID)
	in := &dynamodb.QueryInput{TableName: &s.table, ConsistentRead: aws.Bool(true),
		KeyConditionExpression:    aws.String("pk = :p"),
		ProjectionExpression:      aws.String("pk, sk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: pk}}}
	return s.queryAll(ctx, in, func(item map[string]types.AttributeValue) error {
		_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: map[string]types.AttributeValue{PartitionKey: item[PartitionKey], SortKey: item[SortKey]}})
		return translate(err, "delete harness "+h.ID+" children")
	})
}

// GetHarnessVersion implements engine.AgentCoreStore.
func (s *Store) GetHarnessVersion(ctx context.Context, projectID, harnessID string, version int64) (engine.HarnessVersion, error) {
	var r harnessVersionRecord
	if err := s.get(ctx, harnessPK(projectID, harnessID), harnessVersionSK(version), &r); err != nil {
		return engine.HarnessVersion{}, err
	}
	return versionFromItem(r), nil
}

// ListHarnessVersions implements engine.AgentCoreStore.
func (s *Store) ListHarnessVersions(ctx context.Context, projectID, harnessID string, after int64, limit int) ([]engine.HarnessVersion, int64, error) {
	var out []engine.HarnessVersion
	startSK := ""
	if after > 0 {
		startSK = harnessVersionSK(after)
	}
	more, err := s.queryPrefix(ctx, harnessPK(projectID, harnessID), "VERSION#", startSK, limit, func(item map[string]types.AttributeValue) error {
		var r harnessVersionRecord
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return err
		}
		out = append(out, versionFromItem(r))
		return nil
	})
	if err != nil || !more || len(out) == 0 {
		return out, 0, err
	}
	return out, out[len(out)-1].Version, nil
}

// PutHarnessEndpoint implements engine.AgentCoreStore.
func (s *Store) PutHarnessEndpoint(ctx context.Context, e engine.HarnessEndpoint, idem *engine.Idempotency) error {
	t := &tx{table: s.table}
	if e.Revision == 1 {
		t.put(endpointToItem(e), "attribute_not_exists(pk)", nil)
	} else {
		t.put(endpointToItem(e), "revision = :r", revisionIs(e.Revision-1))
	}
	t.check(harnessesPK(e.ProjectID), harnessSK(e.HarnessID), "attribute_exists(pk)")
	t.idempotency(idem)
	return s.run(ctx, t, "put harness endpoint "+e.Name)
}

// GetHarnessEndpoint implements engine.AgentCoreStore.
func (s *Store) GetHarnessEndpoint(ctx context.Context, projectID, harnessID, name string) (engine.HarnessEndpoint, error) {
	var r harnessEndpointRecord
	if err := s.get(ctx, harnessPK(projectID, harnessID), harnessEndpointSK(name), &r); err != nil {
		return engine.HarnessEndpoint{}, err
	}
	return endpointFromItem(r), nil
}

// ListHarnessEndpoints implements engine.AgentCoreStore.
func (s *Store) ListHarnessEndpoints(ctx context.Context, projectID, harnessID, after string, limit int) ([]engine.HarnessEndpoint, string, error) {
	var out []engine.HarnessEndpoint
	startSK := ""
	if after != "" {
		startSK = harnessEndpointSK(after)
	}
	more, err := s.queryPrefix(ctx, harnessPK(projectID, harnessID), "ENDPOINT#", startSK, limit, func(item map[string]types.AttributeValue) error {
		var r harnessEndpointRecord
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return err
		}
		out = append(out, endpointFromItem(r))
		return nil
	})
	if err != nil || !more || len(out) == 0 {
		return out, "", err
	}
	return out, out[len(out)-1].Name, nil
}

// DeleteHarnessEndpoint implements engine.AgentCoreStore.
func (s *Store) DeleteHarnessEndpoint(ctx context.Context, e engine.HarnessEndpoint, idem *engine.Idempotency) error {
	t := &tx{table: s.table}
	t.del(harnessPK(e.ProjectID, e.HarnessID), harnessEndpointSK(e.Name), "revision = :r", revisionIs(e.Revision))
	t.idempotency(idem)
	return s.run(ctx, t, "delete harness endpoint "+e.Name)
}

// PutAccessKey implements engine.AgentCoreStore.
func (s *Store) PutAccessKey(ctx context.Context, k engine.AccessKey) error {
	item, err := attributevalue.MarshalMap(accessKeyRecord{PK: accessKeyPK(k.ID), SK: skMeta, ID: k.ID, ProjectID: k.ProjectID, SealedSecret: k.SealedSecret, CreatedAt: k.CreatedAt})
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: item,
		ConditionExpression:       aws.String("attribute_not_exists(pk) OR project_id = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: k.ProjectID}}})
	return translate(err, "put access key")
}

// GetAccessKey implements engine.AgentCoreStore.
func (s *Store) GetAccessKey(ctx context.Context, id string) (engine.AccessKey, error) {
	var r accessKeyRecord
	if err := s.get(ctx, accessKeyPK(id), skMeta, &r); err != nil {
		return engine.AccessKey{}, err
	}
	return engine.AccessKey{ID: r.ID, ProjectID: r.ProjectID, SealedSecret: r.SealedSecret, CreatedAt: r.CreatedAt}, nil
}

func providerFromItem(r providerRecord) engine.CredentialProvider {
	return engine.CredentialProvider{ProjectID: r.ProjectID, Name: r.Name, SealedKey: r.SealedKey, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Revision: r.Revision}
}

// PutCredentialProvider implements engine.AgentCoreStore.
func (s *Store) PutCredentialProvider(ctx context.Context, p engine.CredentialProvider) error {
	item, err := attributevalue.MarshalMap(providerRecord{PK: providersPK(p.ProjectID), SK: providerSK(p.Name), ProjectID: p.ProjectID, Name: p.Name,
		SealedKey: p.SealedKey, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, Revision: p.Revision})
	if err != nil {
		return err
	}
	in := &dynamodb.PutItemInput{TableName: &s.table, Item: item, ConditionExpression: aws.String("attribute_not_exists(pk)")}
	if p.Revision > 1 {
		in.ConditionExpression, in.ExpressionAttributeValues = aws.String("revision = :r"), revisionIs(p.Revision-1)
	}
	_, err = s.db.PutItem(ctx, in)
	return translate(err, "put credential provider "+p.Name)
}

// GetCredentialProvider implements engine.AgentCoreStore.
func (s *Store) GetCredentialProvider(ctx context.Context, projectID, name string) (engine.CredentialProvider, error) {
	var r providerRecord
	if err := s.get(ctx, providersPK(projectID), providerSK(name), &r); err != nil {
		return engine.CredentialProvider{}, err
	}
	return providerFromItem(r), nil
}

// ListCredentialProviders implements engine.AgentCoreStore.
func (s *Store) ListCredentialProviders(ctx context.Context, projectID, after string, limit int) ([]engine.CredentialProvider, string, error) {
	var out []engine.CredentialProvider
	startSK := ""
	if after != "" {
		startSK = providerSK(after)
	}
	more, err := s.queryPrefix(ctx, providersPK(projectID), "PROVIDER#", startSK, limit, func(item map[string]types.AttributeValue) error {
		var r providerRecord
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return err
		}
		out = append(out, providerFromItem(r))
		return nil
	})
	if err != nil || !more || len(out) == 0 {
		return out, "", err
	}
	return out, out[len(out)-1].Name, nil
}

// DeleteCredentialProvider implements engine.AgentCoreStore (ErrNotFound when there is none).
func (s *Store) DeleteCredentialProvider(ctx context.Context, projectID, name string) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: key(providersPK(projectID), providerSK(name)),
		ConditionExpression: aws.String("attribute_exists(pk)")})
	if err := translate(err, "delete credential provider "+name); err != nil {
		if errors.Is(err, engine.ErrConflict) {
			return fmt.Errorf("credential provider %s: %w", name, engine.ErrNotFound)
		}
		return err
	}
	return nil
}
