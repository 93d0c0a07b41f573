package ddblocal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// tableActiveTimeout bounds the wait for a new table to become ACTIVE (immediate on DynamoDB Local).
const tableActiveTimeout = 2 * time.Minute

// EnsureTable makes sure the table in.TableName exists, is ACTIVE and, when ttlAttr is not "", has TTL
// enabled on ttlAttr. It is idempotent: an existing table is left as it is (it is not compared with in or
// altered, except for enabling TTL), and a concurrent creation (ResourceInUseException) counts as success.
// It works against DynamoDB Local and real DynamoDB alike.
//
// Errors: in or in.TableName is nil; DescribeTable, CreateTable, the ACTIVE wait or the TTL calls fail; TTL
// is already enabled on a different attribute.
func EnsureTable(ctx context.Context, client *dynamodb.Client, in *dynamodb.CreateTableInput, ttlAttr string) error {
	if in == nil || in.TableName == nil {
		return errors.New("ddblocal: EnsureTable needs a CreateTableInput with a TableName")
	}
	name := aws.ToString(in.TableName)
	_, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: in.TableName})
	var notFound *types.ResourceNotFoundException
	switch {
	case errors.As(err, &notFound):
		if _, err := client.CreateTable(ctx, in); err != nil {
			var inUse *types.ResourceInUseException
			if !errors.As(err, &inUse) {
				return fmt.Errorf("ddblocal: create table %s: %w", name, err)
			}
		}
	case err != nil:
		return fmt.Errorf("ddblocal: describe table %s: %w", name, err)
	}
	waiter := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay = 100 * time.Millisecond
		o.MaxDelay = 2 * time.Second
	})
	if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: in.TableName}, tableActiveTimeout); err != nil {
		return fmt.Errorf("ddblocal: table %s not ACTIVE: %w", name, err)
	}
	if ttlAttr == "" {
		return nil
	}
	ttl, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: in.TableName})
	if err != nil {
		return fmt.Errorf("ddblocal: describe TTL of %s: %w", name, err)
	}
	if d := ttl.TimeToLiveDescription; d != nil {
		switch d.TimeToLiveStatus {
		case types.TimeToLiveStatusEnabled, types.TimeToLiveStatusEnabling:
			if got := aws.ToString(d.AttributeName); got != ttlAttr {
				return fmt.Errorf("ddblocal: table %s has TTL on %q, want %q", name, got, ttlAttr)
			}
			return nil
		}
	}
	_, err = client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: in.TableName,
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(ttlAttr),
			Enabled:       aws.Bool(true),
		},
	})
	if err != nil {
		return fmt.Errorf("ddblocal: enable TTL on %s.%s: %w", name, ttlAttr, err)
	}
	return nil
}
