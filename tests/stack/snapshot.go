package stack

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/go-cmp/cmp"
)

// runtimePrefix is the partition key prefix of runtime heartbeat items (TTL'd registrations that change on their
// own every few seconds); Snapshot leaves them out.
const runtimePrefix = "RUNTIME#"

// DynamoDB returns an aws-sdk-go-v2 DynamoDB client for the stack's DynamoDB endpoint (DynamoDB Local accepts any
// signed request, so the credentials are fixed placeholders).
func DynamoDB(s *Stack) *dynamodb.Client {
	creds := aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{AccessKeyID: "local", SecretAccessKey: "local", Source: "tests/stack"}, nil
	})
	return dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.DynamoDBURL), Credentials: creds})
}

// Snapshot scans the stack's whole table (consistent reads, every page) and returns one entry per item: the key is
// "<pk> <sk>", the value the item's attributes as JSON with sorted member names. Runtime heartbeat items
// (pk RUNTIME#…) are the only exclusion. It fails the test when the scan fails.
//
// A snapshot proves "nothing was written" only while nothing else writes: take it where no other test of the
// package runs (a top-level test without t.Parallel, whose subtests are sequential) and no turn is executing.
func Snapshot(t testing.TB, s *Stack) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := DynamoDB(s)
	out := map[string]string{}
	in := &dynamodb.ScanInput{TableName: aws.String(s.Table), ConsistentRead: aws.Bool(true)}
	for {
		page, err := client.Scan(ctx, in)
		if err != nil {
			t.Fatalf("scan table %s: %v", s.Table, err)
		}
		for _, av := range page.Items {
			var item map[string]any
			if err := attributevalue.UnmarshalMap(av, &item); err != nil {
				t.Fatalf("decode an item of %s: %v", s.Table, err)
			}
			pk, _ := item["pk"].(string)
			if strings.HasPrefix(pk, runtimePrefix) {
				continue
			}
			sk, _ := item["sk"].(string)
			b, err := json.Marshal(item) // maps marshal with sorted keys
			if err != nil {
				t.Fatalf("encode item %s %s: %v", pk, sk, err)
			}
			out[pk+" "+sk] = string(b)
		}
		if len(page.LastEvaluatedKey) == 0 {
			return out
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}

// AssertUnchanged fails the test unless two snapshots are equal; the message lists the items that were added,
// removed or changed (with a -before +after diff of each changed item).
func AssertUnchanged(t testing.TB, before, after map[string]string) {
	t.Helper()
	if diff := SnapshotDiff(before, after); diff != "" {
		t.Errorf("the table changed:\n%s", diff)
	}
}

// SnapshotDiff describes how after differs from before ("" when equal), one line or block per item key, in key
// order.
func SnapshotDiff(before, after map[string]string) string {
	keys := make([]string, 0, len(before)+len(after))
	for k := range before {
		keys = append(keys, k)
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		was, hadIt := before[k]
		now, hasIt := after[k]
		switch {
		case !hadIt:
			fmt.Fprintf(&b, "  added   %s: %s\n", k, now)
		case !hasIt:
			fmt.Fprintf(&b, "  removed %s: %s\n", k, was)
		case was != now:
			fmt.Fprintf(&b, "  changed %s (-before +after):\n%s", k, indent(cmp.Diff(jsonValue(was), jsonValue(now))))
		}
	}
	return b.String()
}

func jsonValue(s string) any {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	return v
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "    " + l
	}
	return strings.Join(lines, "\n") + "\n"
}
