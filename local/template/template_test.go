package template_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/baton-run/baton/local/template"
)

func load(t *testing.T) *template.Template {
	t.Helper()
	tpl, err := template.Load(filepath.Join("testdata", "small.yaml"), template.WithTableName("Items", "items-local"))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return tpl
}

func TestLoadFailsOnMissingFile(t *testing.T) {
	t.Parallel()
	if _, err := template.Load(filepath.Join("testdata", "nope.yaml")); err == nil {
		t.Fatal("Load of a missing file: want an error")
	}
}

func TestResourceLists(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{"activities are the Activity logical IDs", tpl.Activities(), []string{"Queue"}},
		{"tables are the table logical IDs", tpl.Tables(), []string{"Items"}},
		{"state machines are sorted", tpl.StateMachines(), []string{"Broken", "Flow", "Missing"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestFunctionsMergeGlobalsAndResolveLocally(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	dir := tpl.Dir()
	want := []template.Function{
		{
			LogicalID:      "Plain",
			ARN:            "arn:aws:lambda:us-east-1:000000000000:function:Plain",
			CodeDir:        filepath.Join(dir, "cmd", "plain"),
			Runtime:        "provided.al2023",
			Handler:        "bootstrap",
			TimeoutSeconds: 10,
			MemoryMB:       256,
			Env:            map[string]string{"TABLE": "items-local"},
		},
		{
			LogicalID:      "Worker",
			ARN:            "arn:aws:lambda:us-east-1:000000000000:function:Worker",
			CodeDir:        filepath.Join(dir, "cmd", "worker"),
			BuildMethod:    "makefile",
			Runtime:        "provided.al2023",
			Handler:        "bootstrap",
			TimeoutSeconds: 20,
			MemoryMB:       1024,
			Env: map[string]string{
				"TABLE":    "items-local",
				"GREETING": "hello",
				"QUEUE":    "arn:aws:states:us-east-1:000000000000:activity:Queue",
				"FLOW":     "arn:aws:states:us-east-1:000000000000:stateMachine:Flow",
				// goformation resolves !Sub itself, ignoring the overrides (docs/internals.md §L4).
				"BROKEN": "",
				"SUBBED": "arn:aws:lambda:us-east-1:000000000000:function:Worker|us-east-1|${Literal}",
			},
			Schedules: []string{"rate(5 minutes)"},
		},
	}
	if diff := cmp.Diff(want, tpl.Functions(), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Functions() (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"BROKEN", "FLOW", "GREETING", "QUEUE", "SUBBED", "TABLE"}, want[1].EnvNames()); diff != "" {
		t.Errorf("EnvNames() (-want +got):\n%s", diff)
	}
}

func TestFunctionUnknownIsNotFound(t *testing.T) {
	t.Parallel()
	if _, err := load(t).Function("Queue"); !errors.Is(err, template.ErrNotFound) {
		t.Fatalf("Function(Queue) error = %v, want ErrNotFound", err)
	}
}

func TestStateMachineSubstitutionsAreLocalARNs(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	sm, err := tpl.StateMachine("Flow")
	if err != nil {
		t.Fatal(err)
	}
	want := template.StateMachine{
		LogicalID:      "Flow",
		ARN:            "arn:aws:states:us-east-1:000000000000:stateMachine:Flow",
		DefinitionPath: filepath.Join(tpl.Dir(), "flow.asl.json"),
		Substitutions: map[string]string{
			"QueueArn":      "arn:aws:states:us-east-1:000000000000:activity:Queue",
			"WorkerArn":     "arn:aws:lambda:us-east-1:000000000000:function:Worker",
			"WorkerArnLong": "arn:aws:lambda:us-east-1:000000000000:function:Worker",
			"TableName":     "items-local",
		},
		Tags: map[string]string{"team:kind": "flow"},
	}
	if diff := cmp.Diff(want, sm); diff != "" {
		t.Errorf("StateMachine(Flow) (-want +got):\n%s", diff)
	}
}

func TestRender(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	tests := []struct {
		name      string
		id        string
		wantIn    string
		wantError string
	}{
		{name: "substitutes every placeholder", id: "Flow", wantIn: `"FunctionName": "arn:aws:lambda:us-east-1:000000000000:function:Worker"`},
		{name: "an attribute !Sub cannot resolve is an error", id: "Broken", wantError: "QueueArn resolve to \"\""},
		{name: "a placeholder without substitution is an error", id: "Missing", wantError: "no DefinitionSubstitutions for TableName, WorkerArn, WorkerArnLong"},
		{name: "an unknown state machine is an error", id: "Nope", wantError: "not found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := tpl.Render(tc.id)
			if tc.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantError) {
					t.Fatalf("Render(%s) error = %v, want it to contain %q", tc.id, err, tc.wantError)
				}
				return
			}
			if err != nil {
				t.Fatalf("Render(%s): %v", tc.id, err)
			}
			if !strings.Contains(got, tc.wantIn) || strings.Contains(got, "${") {
				t.Errorf("Render(%s) = %s, want it to contain %s and no placeholder", tc.id, got, tc.wantIn)
			}
		})
	}
}

func TestPlaceholders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		def  string
		want []string
	}{
		{"none", `{"a":"b"}`, nil},
		{"distinct and sorted", `{"a":"${B}","b":"${A}","c":"x ${B} y"}`, []string{"A", "B"}},
		{"JSONPath dollars are not placeholders", `{"a.$":"$.b","c":"$$.Task.Token"}`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, template.Placeholders(tc.def)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCreateTableInput(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	got, err := tpl.CreateTableInput("Items", "items-local")
	if err != nil {
		t.Fatal(err)
	}
	want := &dynamodb.CreateTableInput{
		TableName: aws.String("items-local"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("n"), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema:   []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		BillingMode: types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{
			ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5),
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String("byN"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("n"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
			ProvisionedThroughput: &types.ProvisionedThroughput{
				ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5),
			},
		}},
	}
	opts := cmp.Options{
		cmpopts.IgnoreUnexported(dynamodb.CreateTableInput{}, types.AttributeDefinition{}, types.KeySchemaElement{},
			types.GlobalSecondaryIndex{}, types.Projection{}, types.ProvisionedThroughput{}),
		cmpopts.EquateEmpty(),
	}
	if diff := cmp.Diff(want, got, opts); diff != "" {
		t.Errorf("CreateTableInput (-want +got):\n%s", diff)
	}
	ttl, err := tpl.TTLAttribute("Items")
	if err != nil || ttl != "" {
		t.Errorf("TTLAttribute(Items) = %q, %v; want \"\", nil (no TTL declared)", ttl, err)
	}
	if _, err := tpl.CreateTableInput("Queue", "x"); !errors.Is(err, template.ErrNotFound) {
		t.Errorf("CreateTableInput(Queue) error = %v, want ErrNotFound", err)
	}
}
