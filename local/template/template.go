package template

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/awslabs/goformation/v7"
	"github.com/awslabs/goformation/v7/cloudformation"
	"github.com/awslabs/goformation/v7/intrinsics"
)

// Resource types the package resolves or reads.
const (
	typeServerlessFunction     = "AWS::Serverless::Function"
	typeLambdaFunction         = "AWS::Lambda::Function"
	typeActivity               = "AWS::StepFunctions::Activity"
	typeServerlessStateMachine = "AWS::Serverless::StateMachine"
	typeStateMachine           = "AWS::StepFunctions::StateMachine"
	typeTable                  = "AWS::DynamoDB::Table"
	typeRole                   = "AWS::IAM::Role"
	typeLogGroup               = "AWS::Logs::LogGroup"
)

// CodeDirMetadataKey is the resource Metadata key of a function that names the folder of its main package,
// relative to the template (e.g. "functions/api"). It is needed because every function has CodeUri "." (one
// root go.mod, BuildMethod makefile); without it the code folder is the CodeUri.
const CodeDirMetadataKey = "BatonCodeDir"

// ErrNotFound is returned (wrapped, with the logical ID) when a logical ID names no resource of the
// requested type.
var ErrNotFound = errors.New("template: resource not found")

// goformationMu serializes goformation's YAML processing, which is not safe for concurrent use.
var goformationMu sync.Mutex

// Template is a parsed template.yaml with Ref and Fn::GetAtt resolved to local names and ARNs. It is
// immutable after Load and safe for concurrent use.
type Template struct {
	path       string
	dir        string
	cf         *cloudformation.Template
	raw        map[string]any // the processed template, for what goformation's types do not carry
	types      map[string]string
	tableNames map[string]string
}

// Option changes how Load resolves the template.
type Option func(*options)

type options struct {
	tableNames map[string]string
	parameters map[string]any
}

// WithTableName makes Ref of the table logicalID (and its Arn) resolve to name instead of the logical ID,
// e.g. WithTableName("BatonTable", "baton") so that BATON_TABLE in the functions' environment matches the
// table the launcher creates.
func WithTableName(logicalID, name string) Option {
	return func(o *options) { o.tableNames[logicalID] = name }
}

// WithParameter overrides the Default of the template parameter name (as `sam deploy --parameter-overrides`
// would).
func WithParameter(name string, value any) Option {
	return func(o *options) { o.parameters[name] = value }
}

// Load reads and resolves the SAM template at path. It is safe to call concurrently (goformation is not; Load
// serializes its use). Relative paths inside the template (CodeUri,
// DefinitionUri, Metadata BatonCodeDir) are taken relative to the template's folder.
//
// Errors: the file cannot be read, is not a template goformation can parse (goformation is strict about
// property types: a SAM property it types differently, such as Api GatewayResponses, fails the whole load),
// or it has no Resources.
func Load(path string, opts ...Option) (*Template, error) {
	o := options{tableNames: map[string]string{}, parameters: map[string]any{}}
	for _, opt := range opts {
		opt(&o)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("template: read %s: %w", path, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("template: %w", err)
	}
	r := &resolver{tableNames: o.tableNames}
	// goformation's ProcessYAML (re)registers its YAML tag resolvers in a package-level map on every call, so
	// concurrent calls race; serialize them.
	goformationMu.Lock()
	processed, err := intrinsics.ProcessYAML(data, &intrinsics.ProcessorOptions{
		IntrinsicHandlerOverrides: map[string]intrinsics.IntrinsicHandler{
			"Ref":        r.ref,
			"Fn::GetAtt": r.getAtt,
			"Fn::Sub":    r.sub,
		},
		ParameterOverrides: o.parameters,
		EvaluateConditions: true,
	})
	goformationMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("template: parse %s: %w", path, err)
	}
	var raw map[string]any
	if err := json.Unmarshal(processed, &raw); err != nil {
		return nil, fmt.Errorf("template: parse %s: %w", path, err)
	}
	// The intrinsics are resolved already; goformation only has to map the JSON onto its types.
	cf, err := goformation.ParseJSONWithOptions(processed, &intrinsics.ProcessorOptions{NoProcess: true})
	if err != nil {
		return nil, fmt.Errorf("template: parse %s: %w", path, err)
	}
	if len(cf.Resources) == 0 {
		return nil, fmt.Errorf("template: %s has no Resources", path)
	}
	t := &Template{
		path:       abs,
		dir:        filepath.Dir(abs),
		cf:         cf,
		raw:        raw,
		types:      map[string]string{},
		tableNames: o.tableNames,
	}
	for id, res := range mapOf(raw["Resources"]) {
		t.types[id], _ = mapOf(res)["Type"].(string)
	}
	return t, nil
}

// Path returns the absolute path of the template file.
func (t *Template) Path() string { return t.path }

// Dir returns the absolute path of the folder that holds the template; relative paths in the template are
// relative to it.
func (t *Template) Dir() string { return t.dir }

// CloudFormation returns the goformation view of the resolved template, for checks this package does not
// offer. Callers must not modify it.
func (t *Template) CloudFormation() *cloudformation.Template { return t.cf }

// ResourceType returns the Type of the resource logicalID, or "" if there is none.
func (t *Template) ResourceType(logicalID string) string { return t.types[logicalID] }

// Activities returns the logical IDs of every AWS::StepFunctions::Activity, sorted. Locally each one is the
// Activity named after its logical ID (see ActivityARN).
func (t *Template) Activities() []string { return t.ofType(typeActivity) }

// Tables returns the logical IDs of every AWS::DynamoDB::Table, sorted.
func (t *Template) Tables() []string { return t.ofType(typeTable) }

// StateMachines returns the logical IDs of every AWS::Serverless::StateMachine, sorted.
func (t *Template) StateMachines() []string { return t.ofType(typeServerlessStateMachine) }

func (t *Template) ofType(typ string) []string {
	var ids []string
	for id, ty := range t.types {
		if ty == typ {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// tableName is the local name of the table logicalID.
func (t *Template) tableName(logicalID string) string {
	if n, ok := t.tableNames[logicalID]; ok {
		return n
	}
	return logicalID
}

// mapOf returns v as a JSON object, or nil.
func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// rel resolves p (slash-separated, relative to the template) to an absolute path.
func (t *Template) rel(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(t.dir, filepath.FromSlash(strings.TrimPrefix(p, "./")))
}
