package template

import (
	"fmt"
	"sort"

	"github.com/awslabs/goformation/v7/cloudformation/global"
	"github.com/awslabs/goformation/v7/cloudformation/serverless"
)

// Function is an AWS::Serverless::Function with the Globals.Function section merged in (goformation does not
// merge Globals).
type Function struct {
	// LogicalID is the resource's logical ID, which is also its local function name.
	LogicalID string
	// ARN is the local ARN (FunctionARN(LogicalID)).
	ARN string
	// CodeDir is the absolute path of the folder of the function's main package: Metadata BatonCodeDir
	// when set, else CodeUri. It is not checked to exist.
	CodeDir string
	// BuildMethod is Metadata BuildMethod ("makefile" for every Baton function), or "".
	BuildMethod string
	// Runtime, Handler and Architectures as declared (function first, then Globals).
	Runtime       string
	Handler       string
	Architectures []string
	// TimeoutSeconds is the function timeout in seconds; 0 means not declared (SAM's default is 3).
	TimeoutSeconds int
	// MemoryMB is the function's MemorySize in MB (function first, then Globals); 0 means not declared (SAM's
	// default is 128).
	MemoryMB int
	// Env is the environment, Globals first then the function's own variables, with values resolved to
	// local names and ARNs ("" where goformation could not resolve a value).
	Env map[string]string
	// Schedules are the expressions of the function's Schedule events, e.g. "rate(1 minute)".
	Schedules []string
}

// EnvNames returns the names of the function's environment variables, sorted.
func (f Function) EnvNames() []string {
	names := make([]string, 0, len(f.Env))
	for k := range f.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Functions returns every AWS::Serverless::Function, sorted by logical ID.
func (t *Template) Functions() []Function {
	var out []Function
	for _, id := range t.ofType(typeServerlessFunction) {
		f, err := t.Function(id)
		if err == nil {
			out = append(out, f)
		}
	}
	return out
}

// Function returns the function logicalID. Errors: ErrNotFound (wrapped) when logicalID is not an
// AWS::Serverless::Function.
func (t *Template) Function(logicalID string) (Function, error) {
	fn, err := t.cf.GetServerlessFunctionWithName(logicalID)
	if err != nil {
		return Function{}, fmt.Errorf("%w: function %q", ErrNotFound, logicalID)
	}
	g, _ := t.cf.Globals["Function"].(*global.Function)
	if g == nil {
		g = &global.Function{}
	}
	f := Function{
		LogicalID:     logicalID,
		ARN:           FunctionARN(logicalID),
		Runtime:       first(fn.Runtime, g.Runtime),
		Handler:       first(fn.Handler, g.Handler),
		Architectures: fn.Architectures,
		Env:           map[string]string{},
	}
	if f.Architectures == nil && g.Architectures != nil {
		f.Architectures = *g.Architectures
	}
	if fn.Timeout != nil {
		f.TimeoutSeconds = *fn.Timeout
	} else if g.Timeout != nil {
		f.TimeoutSeconds = *g.Timeout
	}
	if fn.MemorySize != nil {
		f.MemoryMB = *fn.MemorySize
	} else if g.MemorySize != nil {
		f.MemoryMB = *g.MemorySize
	}
	codeDir := codeURI(fn.CodeUri)
	if codeDir == "" {
		codeDir = codeURI(g.CodeUri)
	}
	if dir, ok := fn.AWSCloudFormationMetadata[CodeDirMetadataKey].(string); ok && dir != "" {
		codeDir = dir
	}
	if codeDir != "" {
		f.CodeDir = t.rel(codeDir)
	}
	f.BuildMethod, _ = fn.AWSCloudFormationMetadata["BuildMethod"].(string)
	for _, env := range []*serverless.Function_FunctionEnvironment{g.Environment, fn.Environment} {
		if env == nil {
			continue
		}
		for k, v := range env.Variables {
			f.Env[k] = v
		}
	}
	// Event sources are read from the resolved JSON: goformation's event-properties union can pick the
	// wrong variant for a bare {"Schedule": …}.
	props := mapOf(mapOf(mapOf(t.raw["Resources"])[logicalID])["Properties"])
	for _, ev := range mapOf(props["Events"]) {
		ev := mapOf(ev)
		if ev["Type"] != "Schedule" {
			continue
		}
		if s, ok := mapOf(ev["Properties"])["Schedule"].(string); ok {
			f.Schedules = append(f.Schedules, s)
		}
	}
	sort.Strings(f.Schedules)
	return f, nil
}

func first(vals ...*string) string {
	for _, v := range vals {
		if v != nil && *v != "" {
			return *v
		}
	}
	return ""
}

func codeURI(c *serverless.Function_CodeUri) string {
	if c == nil || c.String == nil {
		return ""
	}
	return *c.String
}
