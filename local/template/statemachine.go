package template

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"sort"
	"strings"
)

// StateMachine is an AWS::Serverless::StateMachine resolved for the local stack.
type StateMachine struct {
	// LogicalID is the resource's logical ID, which is also its local name.
	LogicalID string
	// ARN is the local ARN (StateMachineARN(LogicalID)).
	ARN string
	// Type is STANDARD or EXPRESS ("" means STANDARD, SAM's default).
	Type string
	// DefinitionPath is the absolute path of the DefinitionUri file.
	DefinitionPath string
	// Substitutions are the DefinitionSubstitutions with Ref/GetAtt resolved to local names and ARNs. A value
	// that goformation could not resolve (a resource reference inside !Sub) is "".
	Substitutions map[string]string
	// Tags are the state machine's Tags as declared (nil when none).
	Tags map[string]string
}

// placeholder matches a DefinitionSubstitutions placeholder, ${Name}.
var placeholder = regexp.MustCompile(`\$\{([A-Za-z0-9_]+)\}`)

// Placeholders returns the distinct names of the ${Name} placeholders in an ASL definition, sorted.
func Placeholders(definition string) []string {
	seen := map[string]bool{}
	var names []string
	for _, m := range placeholder.FindAllStringSubmatch(definition, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			names = append(names, m[1])
		}
	}
	sort.Strings(names)
	return names
}

// StateMachine returns the state machine logicalID. Errors: ErrNotFound (wrapped) when logicalID is not an
// AWS::Serverless::StateMachine; an error when it has no local DefinitionUri (an inline Definition or an S3
// location is not supported).
func (t *Template) StateMachine(logicalID string) (StateMachine, error) {
	sm, err := t.cf.GetServerlessStateMachineWithName(logicalID)
	if err != nil {
		return StateMachine{}, fmt.Errorf("%w: state machine %q", ErrNotFound, logicalID)
	}
	if sm.DefinitionUri == nil || sm.DefinitionUri.String == nil || *sm.DefinitionUri.String == "" {
		return StateMachine{}, fmt.Errorf("template: state machine %q has no local DefinitionUri", logicalID)
	}
	out := StateMachine{
		LogicalID:      logicalID,
		ARN:            StateMachineARN(logicalID),
		DefinitionPath: t.rel(*sm.DefinitionUri.String),
		Substitutions:  map[string]string{},
	}
	if sm.Type != nil {
		out.Type = *sm.Type
	}
	for k, v := range sm.DefinitionSubstitutions {
		out.Substitutions[k] = v
	}
	if len(sm.Tags) > 0 {
		out.Tags = maps.Clone(sm.Tags)
	}
	return out, nil
}

// Render returns the definition of the state machine logicalID with every ${Name} placeholder replaced by its
// substitution, as SAM does at deploy time. Values are inserted verbatim (placeholders sit inside JSON
// strings, docs/decisions.md §6).
//
// Errors: those of StateMachine; the definition file cannot be read; a placeholder has no substitution, or
// its substitution resolved to "" (typically a resource reference inside !Sub, which goformation cannot
// resolve); the rendered definition is not valid JSON.
func (t *Template) Render(logicalID string) (string, error) {
	sm, err := t.StateMachine(logicalID)
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(sm.DefinitionPath)
	if err != nil {
		return "", fmt.Errorf("template: state machine %q: %w", logicalID, err)
	}
	var missing, empty []string
	for _, name := range Placeholders(string(data)) {
		v, ok := sm.Substitutions[name]
		switch {
		case !ok:
			missing = append(missing, name)
		case v == "":
			empty = append(empty, name)
		}
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("template: state machine %q: no DefinitionSubstitutions for %s", logicalID, strings.Join(missing, ", "))
	}
	if len(empty) > 0 {
		return "", fmt.Errorf("template: state machine %q: DefinitionSubstitutions %s resolve to \"\" (a resource reference inside !Sub is not supported locally)", logicalID, strings.Join(empty, ", "))
	}
	out := placeholder.ReplaceAllStringFunc(string(data), func(m string) string {
		return sm.Substitutions[m[2:len(m)-1]]
	})
	if !json.Valid([]byte(out)) {
		return "", fmt.Errorf("template: state machine %q: rendered definition is not valid JSON", logicalID)
	}
	return out, nil
}
