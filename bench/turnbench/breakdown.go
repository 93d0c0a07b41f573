package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
)

// turnMarks are the client's clock readings of one timed turn (docs/bench.md "Where the resume latency goes"):
// when the tool result was sent and its POST answered, and when the client read the first event after that answer
// (the tool-result commit writes no event, so it is the resumed run's first) and the turn's
// agent.session.turn.completed from the stream.
type turnMarks struct {
	turnID                    string
	sent, posted, first, done time.Time
}

// breakdown is where the timed turns' resume latency went, segment by segment (one duration per turn each).
type breakdown struct {
	segments [][]time.Duration // in the order of breakdownSegments
	posted   []time.Duration   // the tool-result POST's own response time at the client
	ops      []opLatency       // DynamoDB Local round trips by operation, same run
}

// breakdownSegments name the segments of the resume path, in order. Their boundaries are the client's readings
// (turnMarks) and the Step Functions history of the turn's execution, whose timestamps have millisecond
// resolution (the local endpoint's, like AWS's); every process runs on this machine's one clock.
var breakdownSegments = []string{
	"POST → execution resumed (API: read and admit the result, claim the resume, SendTaskSuccess)",
	"resumed → activity task started (Step Functions schedules Run and hands the task to a waiting poll)",
	"task started → first event of the resumed run at the client (runtime reads and commits; wake; stream read)",
	"first event → turn.completed at the client (model, message and settle commits; wake; stream read)",
}

// resumeBreakdown reads the Step Functions history of each timed turn and splits its resume latency into
// breakdownSegments. A turn whose history lacks the resume or the resumed Run's activity start is left out.
func (b *bench) resumeBreakdown(ctx context.Context, marks []turnMarks) (*breakdown, error) {
	st, err := getJSON[sfnStats](ctx, b.stack.SFNURL+"/_baton/stats")
	if err != nil {
		return nil, err
	}
	arnOf := map[string]string{}
	for arn := range st.Executions {
		arnOf[arn[strings.LastIndex(arn, ":")+1:]] = arn
	}
	client := sfn.New(sfn.Options{Region: "us-east-1", BaseEndpoint: aws.String(b.stack.SFNURL),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")})
	bd := &breakdown{segments: make([][]time.Duration, len(breakdownSegments))}
	for _, m := range marks {
		arn, ok := arnOf[m.turnID]
		if !ok || m.first.IsZero() {
			continue
		}
		var resumed, started time.Time
		p := sfn.NewGetExecutionHistoryPaginator(client, &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(arn), MaxResults: 1000})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				return nil, fmt.Errorf("GetExecutionHistory %s: %w", arn, err)
			}
			for _, ev := range page.Events {
				switch ev.Type {
				case sfntypes.HistoryEventTypeTaskSucceeded:
					if d := ev.TaskSucceededEventDetails; d != nil && strings.HasSuffix(aws.ToString(d.Resource), "waitForTaskToken") {
						resumed = aws.ToTime(ev.Timestamp)
					}
				case sfntypes.HistoryEventTypeActivityStarted:
					if !resumed.IsZero() && started.IsZero() {
						started = aws.ToTime(ev.Timestamp)
					}
				}
			}
		}
		if resumed.IsZero() || started.IsZero() {
			continue
		}
		for i, d := range []time.Duration{resumed.Sub(m.sent), started.Sub(resumed), m.first.Sub(started), m.done.Sub(m.first)} {
			bd.segments[i] = append(bd.segments[i], d)
		}
		bd.posted = append(bd.posted, m.posted.Sub(m.sent))
	}
	return bd, nil
}

// opLatency is the round trip of one DynamoDB operation against DynamoDB Local.
type opLatency struct {
	name  string
	times []time.Duration
}

// dynamoOpRoundTrips times n requests of each kind a turn makes against DynamoDB Local, on items of their own
// (partition BENCH#ops), shaped like the engine's: a consistent GetItem, a BatchGetItem of 2 keys, a Query that
// finds nothing after the last event, a TransactGetItems of 3 keys, and a TransactWriteItems like a commit (a
// versioned Session update, a ConditionCheck, 3 new items of ~600 bytes).
func dynamoOpRoundTrips(ctx context.Context, endpoint, table string, n int) ([]opLatency, error) {
	client := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")})
	s := func(v string) ddbtypes.AttributeValue { return &ddbtypes.AttributeValueMemberS{Value: v} }
	const pk = "BENCH#ops"
	key := func(sk string) map[string]ddbtypes.AttributeValue {
		return map[string]ddbtypes.AttributeValue{"pk": s(pk), "sk": s(sk)}
	}
	body := s(strings.Repeat("x", 600))
	for _, sk := range []string{"META", "TURN", "EVENT#000000000001"} {
		if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table),
			Item: map[string]ddbtypes.AttributeValue{"pk": s(pk), "sk": s(sk), "version": &ddbtypes.AttributeValueMemberN{Value: "0"}, "data": body}}); err != nil {
			return nil, fmt.Errorf("PutItem: %w", err)
		}
	}
	version, seq := 0, 0
	ops := []struct {
		name string
		do   func() error
	}{
		{"GetItem", func() error {
			_, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key("META"), ConsistentRead: aws.Bool(true)})
			return err
		}},
		{"BatchGetItem (2 keys)", func() error {
			_, err := client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]ddbtypes.KeysAndAttributes{
				table: {Keys: []map[string]ddbtypes.AttributeValue{key("META"), key("TURN")}, ConsistentRead: aws.Bool(true)}}})
			return err
		}},
		{"Query (nothing after the last event)", func() error {
			_, err := client.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true), Limit: aws.Int32(100),
				KeyConditionExpression:    aws.String("pk = :pk AND sk BETWEEN :from AND :to"),
				ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":pk": s(pk), ":from": s("EVENT#000000000002"), ":to": s("EVENT#999999999999")}})
			return err
		}},
		{"TransactGetItems (3 keys)", func() error {
			_, err := client.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []ddbtypes.TransactGetItem{
				{Get: &ddbtypes.Get{TableName: aws.String(table), Key: key("META")}},
				{Get: &ddbtypes.Get{TableName: aws.String(table), Key: key("TURN")}},
				{Get: &ddbtypes.Get{TableName: aws.String(table), Key: key("EVENT#000000000001")}}}})
			return err
		}},
		{"TransactWriteItems (update, check, 3 puts)", func() error {
			items := []ddbtypes.TransactWriteItem{
				{Update: &ddbtypes.Update{TableName: aws.String(table), Key: key("META"), UpdateExpression: aws.String("SET version = :next"),
					ConditionExpression: aws.String("version = :v"), ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{
						":v": &ddbtypes.AttributeValueMemberN{Value: fmt.Sprint(version)}, ":next": &ddbtypes.AttributeValueMemberN{Value: fmt.Sprint(version + 1)}}}},
				{ConditionCheck: &ddbtypes.ConditionCheck{TableName: aws.String(table), Key: key("TURN"), ConditionExpression: aws.String("attribute_exists(pk)")}},
			}
			for i := 0; i < 3; i++ {
				seq++
				items = append(items, ddbtypes.TransactWriteItem{Put: &ddbtypes.Put{TableName: aws.String(table),
					Item:                map[string]ddbtypes.AttributeValue{"pk": s(pk), "sk": s(fmt.Sprintf("ITEM#%012d", seq)), "data": body},
					ConditionExpression: aws.String("attribute_not_exists(pk)")}})
			}
			_, err := client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
			if err == nil {
				version++
			}
			return err
		}},
	}
	out := make([]opLatency, len(ops))
	for i := -5; i < n; i++ { // 5 unmeasured rounds first
		for j, op := range ops {
			start := time.Now()
			if err := op.do(); err != nil {
				return nil, fmt.Errorf("%s: %w", op.name, err)
			}
			if i >= 0 {
				out[j].name = op.name
				out[j].times = append(out[j].times, time.Since(start))
			}
		}
	}
	return out, nil
}

// reportBreakdown prints where the resume latency went (p50 and p95 of each segment) and DynamoDB Local's round
// trip by operation, beside the UpdateItem p50 the ratio is taken against.
func reportBreakdown(out io.Writer, bd *breakdown, updates []time.Duration) {
	if bd == nil || len(bd.posted) == 0 {
		return
	}
	fmt.Fprintf(out, "\nWhere the resume latency goes (timed turns; Step Functions history timestamps have ms resolution)\n")
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "segment\tn\tp50\tp95\t")
	for i, name := range breakdownSegments {
		fmt.Fprintf(w, "%s\t%d\t%s\t%s\t\n", name, len(bd.segments[i]), pct(bd.segments[i], 50), pct(bd.segments[i], 95))
	}
	fmt.Fprintf(w, "(the tool-result POST's own response, at the client)\t%d\t%s\t%s\t\n", len(bd.posted), pct(bd.posted, 50), pct(bd.posted, 95))
	w.Flush()
	if len(bd.ops) == 0 {
		return
	}
	fmt.Fprintf(out, "\nDynamoDB Local round trip by operation (same run, items shaped like the engine's)\n")
	w = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "operation\tn\tp50\tp95\t× UpdateItem p50\t")
	up := percentile(updates, 50)
	for _, op := range bd.ops {
		ratio := "–"
		if up > 0 {
			ratio = fmt.Sprintf("%.1f", float64(percentile(op.times, 50))/float64(up))
		}
		fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%s\t\n", op.name, len(op.times), pct(op.times, 50), pct(op.times, 95), ratio)
	}
	w.Flush()
}
