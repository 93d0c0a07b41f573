package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/baton-run/baton/shared/engine"
)

// Vault keys: `VAULT#<id>` / `META` (gsi1pk `PROJECT#<p>#VAULT`, gsi1sk the id) and `VAULT#<id>` /
// `CREDENTIAL#<id>`. The static bearer token is stored as an attribute of the credential item (a sealed store is a
// later refinement; the table is encrypted at rest by DynamoDB).
func vaultPK(id string) string         { return "VAULT#" + id }
func credentialSK(id string) string    { return "CREDENTIAL#" + id }
func projectVaultsGSI(p string) string { return "PROJECT#" + p + "#VAULT" }

var _ engine.VaultStore = (*Store)(nil)

type vaultRecord struct {
	PK        string            `dynamodbav:"pk"`
	SK        string            `dynamodbav:"sk"`
	GSI1PK    string            `dynamodbav:"gsi1pk"`
	GSI1SK    string            `dynamodbav:"gsi1sk"`
	ID        string            `dynamodbav:"id"`
	ProjectID string            `dynamodbav:"project_id"`
	Name      *string           `dynamodbav:"name"`
	Metadata  map[string]string `dynamodbav:"metadata"`
	CreatedAt int64             `dynamodbav:"created_at"`
}

func vaultToItem(v engine.Vault) vaultRecord {
	return vaultRecord{PK: vaultPK(v.ID), SK: skMeta, GSI1PK: projectVaultsGSI(v.ProjectID), GSI1SK: v.ID, ID: v.ID,
		ProjectID: v.ProjectID, Name: v.Name, Metadata: v.Metadata, CreatedAt: v.CreatedAt}
}

func vaultFromItem(r vaultRecord) engine.Vault {
	return engine.Vault{ID: r.ID, ProjectID: r.ProjectID, Name: r.Name, Metadata: r.Metadata, CreatedAt: r.CreatedAt}
}

type credentialRecord struct {
	PK           string  `dynamodbav:"pk"`
	SK           string  `dynamodbav:"sk"`
	ID           string  `dynamodbav:"id"`
	VaultID      string  `dynamodbav:"vault_id"`
	ProjectID    string  `dynamodbav:"project_id"`
	Name         *string `dynamodbav:"name"`
	AuthType     string  `dynamodbav:"auth_type"`
	Token        string  `dynamodbav:"token"`
	MCPServerURL string  `dynamodbav:"mcp_server_url"`
	CreatedAt    int64   `dynamodbav:"created_at"`
}

func credentialToItem(c engine.Credential) credentialRecord {
	return credentialRecord{PK: vaultPK(c.VaultID), SK: credentialSK(c.ID), ID: c.ID, VaultID: c.VaultID, ProjectID: c.ProjectID,
		Name: c.Name, AuthType: c.AuthType, Token: c.Token, MCPServerURL: c.MCPServerURL, CreatedAt: c.CreatedAt}
}

func credentialFromItem(r credentialRecord) engine.Credential {
	return engine.Credential{ID: r.ID, VaultID: r.VaultID, ProjectID: r.ProjectID, Name: r.Name, AuthType: r.AuthType,
		Token: r.Token, MCPServerURL: r.MCPServerURL, CreatedAt: r.CreatedAt}
}

// PutVault implements engine.VaultStore (conditional: the vault must not exist).
func (s *Store) PutVault(ctx context.Context, v engine.Vault) error {
	return s.putNew(ctx, vaultToItem(v))
}

// GetVault implements engine.VaultStore.
func (s *Store) GetVault(ctx context.Context, vaultID string) (engine.Vault, error) {
	var r vaultRecord
	if err := s.get(ctx, vaultPK(vaultID), skMeta, &r); err != nil {
		return engine.Vault{}, err
	}
	return vaultFromItem(r), nil
}

// ListVaults implements engine.VaultStore (by creation, every page).
func (s *Store) ListVaults(ctx context.Context, projectID string) ([]engine.Vault, error) {
	in := &dynamodb.QueryInput{TableName: &s.table, IndexName: aws.String(GSI1Name),
		KeyConditionExpression:    aws.String("gsi1pk = :g"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":g": &types.AttributeValueMemberS{Value: projectVaultsGSI(projectID)}}}
	var out []engine.Vault
	err := s.queryAll(ctx, in, func(item map[string]types.AttributeValue) error {
		var r vaultRecord
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return err
		}
		out = append(out, vaultFromItem(r))
		return nil
	})
	return out, err
}

// PutCredential implements engine.VaultStore (conditional: the credential must not exist).
func (s *Store) PutCredential(ctx context.Context, c engine.Credential) error {
	return s.putNew(ctx, credentialToItem(c))
}

// ListCredentials implements engine.VaultStore (strongly consistent, by id).
func (s *Store) ListCredentials(ctx context.Context, vaultID string) ([]engine.Credential, error) {
	in := &dynamodb.QueryInput{TableName: &s.table, ConsistentRead: aws.Bool(true),
		KeyConditionExpression: aws.String("pk = :p AND begins_with(sk, :c)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":p": &types.AttributeValueMemberS{Value: vaultPK(vaultID)},
			":c": &types.AttributeValueMemberS{Value: "CREDENTIAL#"},
		}}
	var out []engine.Credential
	err := s.queryAll(ctx, in, func(item map[string]types.AttributeValue) error {
		var r credentialRecord
		if err := attributevalue.UnmarshalMap(item, &r); err != nil {
			return err
		}
		out = append(out, credentialFromItem(r))
		return nil
	})
	return out, err
}

// queryAll runs a query through every page.
func (s *Store) queryAll(ctx context.Context, in *dynamodb.QueryInput, decode func(map[string]types.AttributeValue) error) error {
	for {
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return fmt.Errorf("query: %w", err)
		}
		for _, item := range res.Items {
			if err := decode(item); err != nil {
				return err
			}
		}
		if res.LastEvaluatedKey == nil {
			return nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
}
