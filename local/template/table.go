package template

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	cfdynamodb "github.com/awslabs/goformation/v7/cloudformation/dynamodb"
)

// CreateTableInput returns the definition of the AWS::DynamoDB::Table logicalID as a CreateTable request
// for a table named tableName: attribute definitions, key schema, global and local secondary indexes
// (with their projections), billing mode (with the provisioned throughput when PROVISIONED) and the stream
// specification. What has no meaning locally is left out: TableName of the template, SSE, point-in-time
// recovery, tags, deletion protection, table class. The TTL is not part of CreateTable; see TTLAttribute.
//
// Errors: ErrNotFound (wrapped) when logicalID is not a table; an error when the table has no key schema.
// Each call returns a new value that the caller may modify.
func (t *Template) CreateTableInput(logicalID, tableName string) (*dynamodb.CreateTableInput, error) {
	tbl, err := t.cf.GetDynamoDBTableWithName(logicalID)
	if err != nil {
		return nil, fmt.Errorf("%w: table %q", ErrNotFound, logicalID)
	}
	if len(tbl.KeySchema) == 0 {
		return nil, fmt.Errorf("template: table %q has no KeySchema", logicalID)
	}
	in := &dynamodb.CreateTableInput{
		TableName: aws.String(tableName),
		KeySchema: keySchema(tbl.KeySchema),
	}
	for _, a := range tbl.AttributeDefinitions {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{
			AttributeName: aws.String(a.AttributeName),
			AttributeType: types.ScalarAttributeType(a.AttributeType),
		})
	}
	// CloudFormation's default billing mode is PROVISIONED, as is DynamoDB's.
	in.BillingMode = types.BillingModeProvisioned
	if tbl.BillingMode != nil && *tbl.BillingMode != "" {
		in.BillingMode = types.BillingMode(*tbl.BillingMode)
	}
	provisioned := in.BillingMode == types.BillingModeProvisioned
	if provisioned {
		in.ProvisionedThroughput = throughput(tbl.ProvisionedThroughput)
	}
	for _, g := range tbl.GlobalSecondaryIndexes {
		gsi := types.GlobalSecondaryIndex{
			IndexName:  aws.String(g.IndexName),
			KeySchema:  keySchema(g.KeySchema),
			Projection: projection(g.Projection),
		}
		if provisioned {
			gsi.ProvisionedThroughput = throughput(g.ProvisionedThroughput)
		}
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, gsi)
	}
	for _, l := range tbl.LocalSecondaryIndexes {
		in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{
			IndexName:  aws.String(l.IndexName),
			KeySchema:  keySchema(l.KeySchema),
			Projection: projection(l.Projection),
		})
	}
	if s := tbl.StreamSpecification; s != nil && s.StreamViewType != "" {
		in.StreamSpecification = &types.StreamSpecification{
			StreamEnabled:  aws.Bool(true),
			StreamViewType: types.StreamViewType(s.StreamViewType),
		}
	}
	return in, nil
}

// TTLAttribute returns the TTL attribute name of the table logicalID (TimeToLiveSpecification), or "" when
// the table declares no enabled TTL. Errors: ErrNotFound (wrapped) when logicalID is not a table.
func (t *Template) TTLAttribute(logicalID string) (string, error) {
	tbl, err := t.cf.GetDynamoDBTableWithName(logicalID)
	if err != nil {
		return "", fmt.Errorf("%w: table %q", ErrNotFound, logicalID)
	}
	ttl := tbl.TimeToLiveSpecification
	if ttl == nil || !ttl.Enabled || ttl.AttributeName == nil {
		return "", nil
	}
	return *ttl.AttributeName, nil
}

func keySchema(ks []cfdynamodb.Table_KeySchema) []types.KeySchemaElement {
	out := make([]types.KeySchemaElement, 0, len(ks))
	for _, k := range ks {
		out = append(out, types.KeySchemaElement{
			AttributeName: aws.String(k.AttributeName),
			KeyType:       types.KeyType(k.KeyType),
		})
	}
	return out
}

func projection(p *cfdynamodb.Table_Projection) *types.Projection {
	out := &types.Projection{ProjectionType: types.ProjectionTypeAll}
	if p == nil {
		return out
	}
	if p.ProjectionType != nil {
		out.ProjectionType = types.ProjectionType(*p.ProjectionType)
	}
	out.NonKeyAttributes = append(out.NonKeyAttributes, p.NonKeyAttributes...)
	return out
}

// throughput returns the provisioned throughput, or 5/5 capacity units when the template gives none (enough
// for DynamoDB Local, which ignores it).
func throughput(p *cfdynamodb.Table_ProvisionedThroughput) *types.ProvisionedThroughput {
	if p == nil {
		return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}
	}
	return &types.ProvisionedThroughput{
		ReadCapacityUnits:  aws.Int64(int64(p.ReadCapacityUnits)),
		WriteCapacityUnits: aws.Int64(int64(p.WriteCapacityUnits)),
	}
}
