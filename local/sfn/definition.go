package sfn

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// definition is a compiled, validated state machine definition (spec §4; JSONPath query language only).
type definition struct {
	StartAt        string
	States         map[string]*stateDef
	TimeoutSeconds int64 // 0 = no execution timeout
}

// dataPath is an InputPath, OutputPath or ResultPath: a nil *dataPath is the default "$", null is JSON null.
type dataPath struct {
	null bool
	path *jsonPath
}

type resourceKind int

const (
	resActivity resourceKind = iota + 1
	resLambdaInvoke
	resLambdaCallback
	resLambdaLegacy
)

// dynString is a Fail state's ErrorPath or CausePath: a Reference Path or an intrinsic call.
type dynString struct {
	text string
	path *jsonPath
	call *intrinsicCall
}

// stateDef is one compiled state.
type stateDef struct {
	Name, Type, Next string
	End              bool

	InputPath, OutputPath, ResultPath *dataPath
	Parameters, ResultSelector        *payloadTemplate
	Result                            any
	HasResult                         bool

	Resource                                 string
	Kind                                     resourceKind
	TimeoutSeconds, HeartbeatSeconds         int64
	TimeoutSecondsPath, HeartbeatSecondsPath *jsonPath
	Retry                                    []retrier
	Catch                                    []catcher

	Choices []*choiceRule
	Default string

	Seconds       *int64
	SecondsPath   *jsonPath
	Timestamp     string
	TimestampPath *jsonPath

	Error, Cause         *string
	ErrorPath, CausePath *dynString
}

// DefinitionError is the detail of an InvalidDefinition rejection: Code is one of SCHEMA_VALIDATION_FAILED,
// MISSING_TRANSITION_TARGET, DUPLICATE_STATE_NAME, INVALID_JSON_DESCRIPTION; At is a JSON pointer into the
// definition (spec §2.2).
type DefinitionError struct {
	Code   string
	Detail string
	At     string
}

// Error renders the AWS message: "Invalid State Machine Definition: '<CODE>: <detail> at <pointer>'".
func (e *DefinitionError) Error() string {
	return fmt.Sprintf("Invalid State Machine Definition: '%s: %s at %s'", e.Code, e.Detail, e.At)
}

func schemaErr(at, format string, args ...any) *DefinitionError {
	return &DefinitionError{Code: "SCHEMA_VALIDATION_FAILED", Detail: fmt.Sprintf(format, args...), At: at}
}

var stateFields = map[string][]string{
	"Pass":    {"Next", "End", "InputPath", "OutputPath", "Parameters", "Result", "ResultPath"},
	"Task":    {"Next", "End", "InputPath", "OutputPath", "Parameters", "ResultSelector", "ResultPath", "Resource", "TimeoutSeconds", "TimeoutSecondsPath", "HeartbeatSeconds", "HeartbeatSecondsPath", "Retry", "Catch"},
	"Choice":  {"InputPath", "OutputPath", "Choices", "Default"},
	"Wait":    {"Next", "End", "InputPath", "OutputPath", "Seconds", "SecondsPath", "Timestamp", "TimestampPath"},
	"Succeed": {"InputPath", "OutputPath"},
	"Fail":    {"Error", "Cause", "ErrorPath", "CausePath"},
}

var (
	activityARNPattern = regexp.MustCompile(`^arn:aws:states:[a-z0-9-]+:[0-9]{12}:activity:[^:]+$`)
	functionARNPattern = regexp.MustCompile(`^arn:aws:lambda:[a-z0-9-]+:[0-9]{12}:function:[^:]+(:[^:]+)?$`)
)

// parseDefinition validates and compiles an ASL definition (JSONPath). Every rejection is a *DefinitionError
// naming the state and field; unsupported ASL (Parallel, Map, JSONata, variables, service integrations other
// than Lambda, .sync) is rejected, not ignored.
func parseDefinition(text string) (*definition, error) {
	raw, err := decodeJSON([]byte(text))
	if err != nil {
		return nil, &DefinitionError{Code: "INVALID_JSON_DESCRIPTION", Detail: err.Error(), At: "/"}
	}
	if derr := checkDuplicateKeys([]byte(text)); derr != nil {
		return nil, derr
	}
	top, ok := raw.(map[string]any)
	if !ok {
		return nil, schemaErr("/", "the definition must be a JSON object")
	}
	for k := range top {
		switch k {
		case "StartAt", "States", "Comment", "Version", "TimeoutSeconds":
		case "QueryLanguage":
			if top[k] != "JSONPath" {
				return nil, schemaErr("/QueryLanguage", "QueryLanguage %v is not supported by the local endpoint (JSONPath only)", top[k])
			}
		default:
			return nil, schemaErr("/"+k, "the field '%s' is not supported", k)
		}
	}
	var missing []string
	for _, k := range []string{"StartAt", "States"} {
		if _, ok := top[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return nil, schemaErr("/", "These fields are required: [%s]", strings.Join(missing, ", "))
	}
	d := &definition{States: map[string]*stateDef{}}
	if d.StartAt, ok = top["StartAt"].(string); !ok {
		return nil, schemaErr("/StartAt", "StartAt must be a string")
	}
	if v, ok := top["TimeoutSeconds"]; ok {
		n, ok := asInt(v)
		if !ok || n <= 0 {
			return nil, schemaErr("/TimeoutSeconds", "TimeoutSeconds must be a positive integer")
		}
		d.TimeoutSeconds = n
	}
	states, ok := top["States"].(map[string]any)
	if !ok || len(states) == 0 {
		return nil, schemaErr("/States", "States must be a non-empty object")
	}
	names := make([]string, 0, len(states))
	for name := range states {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s, err := parseState(name, states[name])
		if err != nil {
			return nil, err
		}
		d.States[name] = s
	}
	if _, ok := d.States[d.StartAt]; !ok {
		return nil, &DefinitionError{Code: "MISSING_TRANSITION_TARGET", Detail: fmt.Sprintf("Missing 'Next' target: %s", d.StartAt), At: "/StartAt"}
	}
	for _, name := range names {
		s := d.States[name]
		check := func(target, field string) error {
			if target == "" {
				return nil
			}
			if _, ok := d.States[target]; !ok {
				return &DefinitionError{Code: "MISSING_TRANSITION_TARGET", Detail: fmt.Sprintf("Missing 'Next' target: %s", target), At: "/States/" + name + "/" + field}
			}
			return nil
		}
		if err := check(s.Next, "Next"); err != nil {
			return nil, err
		}
		if err := check(s.Default, "Default"); err != nil {
			return nil, err
		}
		for i, c := range s.Choices {
			if err := check(c.next, fmt.Sprintf("Choices/%d/Next", i)); err != nil {
				return nil, err
			}
		}
		for i, c := range s.Catch {
			if err := check(c.Next, fmt.Sprintf("Catch/%d/Next", i)); err != nil {
				return nil, err
			}
		}
	}
	return d, nil
}

func parseState(name string, v any) (*stateDef, error) {
	at := "/States/" + name
	if len(name) == 0 || len(name) > 80 {
		return nil, schemaErr(at, "state names must be 1 to 80 characters")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, schemaErr(at, "a state must be an object")
	}
	typ, _ := m["Type"].(string)
	allowed, ok := stateFields[typ]
	if !ok {
		if typ == "Parallel" || typ == "Map" {
			return nil, schemaErr(at+"/Type", "the state type '%s' is not supported by the local endpoint", typ)
		}
		return nil, schemaErr(at+"/Type", "unknown state type %v", m["Type"])
	}
	for k := range m {
		if k == "Type" || k == "Comment" {
			continue
		}
		if !contains(allowed, k) {
			return nil, schemaErr(at+"/"+k, "the field '%s' is not supported in a %s state", k, typ)
		}
	}
	s := &stateDef{Name: name, Type: typ}
	var err error
	// transitions
	if n, ok := m["Next"]; ok {
		if s.Next, ok = n.(string); !ok || s.Next == "" {
			return nil, schemaErr(at+"/Next", "Next must be a non-empty string")
		}
	}
	if e, ok := m["End"]; ok {
		b, ok := e.(bool)
		if !ok {
			return nil, schemaErr(at+"/End", "End must be a boolean")
		}
		s.End = b
	}
	switch typ {
	case "Pass", "Task", "Wait":
		if (s.Next == "") == !s.End {
			return nil, schemaErr(at, "exactly one of 'Next' or 'End: true' is required")
		}
	}
	if s.InputPath, err = optDataPath(m, "InputPath", at, false); err != nil {
		return nil, err
	}
	if s.OutputPath, err = optDataPath(m, "OutputPath", at, false); err != nil {
		return nil, err
	}
	if s.ResultPath, err = optDataPath(m, "ResultPath", at, true); err != nil {
		return nil, err
	}
	if p, ok := m["Parameters"]; ok {
		if s.Parameters, err = compileTemplate(p, at+"/Parameters"); err != nil {
			return nil, schemaErr(at+"/Parameters", "%v", err)
		}
	}
	if p, ok := m["ResultSelector"]; ok {
		if s.ResultSelector, err = compileTemplate(p, at+"/ResultSelector"); err != nil {
			return nil, schemaErr(at+"/ResultSelector", "%v", err)
		}
	}
	if r, ok := m["Result"]; ok {
		s.Result, s.HasResult = r, true
	}
	switch typ {
	case "Task":
		if err := parseTask(s, m, at); err != nil {
			return nil, err
		}
	case "Choice":
		list, ok := m["Choices"].([]any)
		if !ok || len(list) == 0 {
			return nil, schemaErr(at+"/Choices", "Choices must be a non-empty array")
		}
		for i, e := range list {
			r, err := compileChoiceRule(e, fmt.Sprintf("%s/Choices/%d", at, i), true)
			if err != nil {
				return nil, schemaErr(fmt.Sprintf("%s/Choices/%d", at, i), "%v", err)
			}
			s.Choices = append(s.Choices, r)
		}
		if d, ok := m["Default"]; ok {
			if s.Default, ok = d.(string); !ok {
				return nil, schemaErr(at+"/Default", "Default must be a string")
			}
		}
	case "Wait":
		n := 0
		if v, ok := m["Seconds"]; ok {
			i, ok := asInt(v)
			if !ok || i < 0 {
				return nil, schemaErr(at+"/Seconds", "Seconds must be a non-negative integer")
			}
			s.Seconds = &i
			n++
		}
		if v, ok := m["Timestamp"]; ok {
			ts, ok := v.(string)
			if _, err := parseTimestamp(ts); !ok || err != nil {
				return nil, schemaErr(at+"/Timestamp", "Timestamp must be an RFC3339 string")
			}
			s.Timestamp = ts
			n++
		}
		for _, f := range []string{"SecondsPath", "TimestampPath"} {
			if v, ok := m[f]; ok {
				str, _ := v.(string)
				p, err := parseReferencePath(str, true)
				if err != nil {
					return nil, schemaErr(at+"/"+f, "%v", err)
				}
				if f == "SecondsPath" {
					s.SecondsPath = p
				} else {
					s.TimestampPath = p
				}
				n++
			}
		}
		if n != 1 {
			return nil, schemaErr(at, "exactly one of Seconds, SecondsPath, Timestamp, TimestampPath is required")
		}
	case "Fail":
		for _, f := range []string{"Error", "Cause"} {
			if v, ok := m[f]; ok {
				str, ok := v.(string)
				if !ok {
					return nil, schemaErr(at+"/"+f, "%s must be a string", f)
				}
				if _, both := m[f+"Path"]; both {
					return nil, schemaErr(at+"/"+f+"Path", "%s and %sPath are mutually exclusive", f, f)
				}
				if f == "Error" {
					s.Error = &str
				} else {
					s.Cause = &str
				}
			}
			if v, ok := m[f+"Path"]; ok {
				str, _ := v.(string)
				ds := &dynString{text: str}
				if strings.HasPrefix(str, "$") {
					ds.path, err = parseReferencePath(str, true)
				} else {
					ds.call, err = parseIntrinsic(str)
				}
				if err != nil {
					return nil, schemaErr(at+"/"+f+"Path", "%v", err)
				}
				if f == "Error" {
					s.ErrorPath = ds
				} else {
					s.CausePath = ds
				}
			}
		}
	}
	return s, nil
}

func parseTask(s *stateDef, m map[string]any, at string) error {
	res, ok := m["Resource"].(string)
	if !ok {
		return schemaErr(at, "These fields are required: [Resource]")
	}
	s.Resource = res
	switch {
	case res == "arn:aws:states:::lambda:invoke":
		s.Kind = resLambdaInvoke
	case res == "arn:aws:states:::lambda:invoke.waitForTaskToken":
		s.Kind = resLambdaCallback
	case activityARNPattern.MatchString(res):
		s.Kind = resActivity
	case functionARNPattern.MatchString(res):
		s.Kind = resLambdaLegacy
	default:
		return schemaErr(at+"/Resource", "the resource '%s' is not supported by the local endpoint (supported: activities, arn:aws:states:::lambda:invoke[.waitForTaskToken], Lambda function ARNs)", res)
	}
	if s.Kind == resLambdaInvoke || s.Kind == resLambdaCallback {
		if s.Parameters == nil {
			return schemaErr(at+"/Parameters", "%s needs Parameters with FunctionName", res)
		}
		if _, ok1 := s.Parameters.fields["FunctionName"]; !ok1 {
			return schemaErr(at+"/Parameters", "%s needs Parameters with FunctionName", res)
		}
	}
	for _, f := range []string{"TimeoutSeconds", "HeartbeatSeconds"} {
		if v, ok := m[f]; ok {
			n, ok := asInt(v)
			if !ok || n <= 0 || n > 99999999 {
				return schemaErr(at+"/"+f, "%s must be a positive integer", f)
			}
			if _, both := m[f+"Path"]; both {
				return schemaErr(at+"/"+f+"Path", "%s and %sPath are mutually exclusive", f, f)
			}
			if f == "TimeoutSeconds" {
				s.TimeoutSeconds = n
			} else {
				s.HeartbeatSeconds = n
			}
		}
		if v, ok := m[f+"Path"]; ok {
			str, _ := v.(string)
			p, err := parseReferencePath(str, true)
			if err != nil {
				return schemaErr(at+"/"+f+"Path", "%v", err)
			}
			if f == "TimeoutSeconds" {
				s.TimeoutSecondsPath = p
			} else {
				s.HeartbeatSecondsPath = p
			}
		}
	}
	if s.TimeoutSeconds > 0 && s.HeartbeatSeconds > 0 && s.HeartbeatSeconds >= s.TimeoutSeconds {
		return schemaErr(at+"/HeartbeatSeconds", "HeartbeatSeconds must be smaller than TimeoutSeconds")
	}
	if v, ok := m["Retry"]; ok {
		list, ok := v.([]any)
		if !ok {
			return schemaErr(at+"/Retry", "Retry must be an array")
		}
		for i, e := range list {
			r, err := parseRetrier(e, fmt.Sprintf("%s/Retry/%d", at, i), i == len(list)-1)
			if err != nil {
				return err
			}
			s.Retry = append(s.Retry, r)
		}
	}
	if v, ok := m["Catch"]; ok {
		list, ok := v.([]any)
		if !ok {
			return schemaErr(at+"/Catch", "Catch must be an array")
		}
		for i, e := range list {
			cat := fmt.Sprintf("%s/Catch/%d", at, i)
			cm, ok := e.(map[string]any)
			if !ok {
				return schemaErr(cat, "a catcher must be an object")
			}
			for k := range cm {
				if k != "ErrorEquals" && k != "Next" && k != "ResultPath" && k != "Comment" {
					return schemaErr(cat+"/"+k, "the field '%s' is not supported in a catcher", k)
				}
			}
			eq, err := parseErrorEquals(cm["ErrorEquals"], cat, i == len(list)-1)
			if err != nil {
				return err
			}
			next, _ := cm["Next"].(string)
			if next == "" {
				return schemaErr(cat, "These fields are required: [Next]")
			}
			rp, err := optDataPath(cm, "ResultPath", cat, true)
			if err != nil {
				return err
			}
			s.Catch = append(s.Catch, catcher{ErrorEquals: eq, Next: next, ResultPath: rp})
		}
	}
	return nil
}

func parseErrorEquals(v any, at string, last bool) ([]string, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, schemaErr(at+"/ErrorEquals", "ErrorEquals must be a non-empty array of strings")
	}
	var out []string
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, schemaErr(at+"/ErrorEquals", "ErrorEquals must be a non-empty array of strings")
		}
		out = append(out, s)
	}
	if contains(out, errAll) && (len(out) != 1 || !last) {
		return nil, schemaErr(at+"/ErrorEquals", "States.ALL must appear alone and in the last retrier or catcher")
	}
	return out, nil
}

func parseRetrier(v any, at string, last bool) (retrier, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return retrier{}, schemaErr(at, "a retrier must be an object")
	}
	r := retrier{IntervalSeconds: 1, MaxAttempts: 3, BackoffRate: 2.0}
	for k, e := range m {
		switch k {
		case "ErrorEquals", "Comment":
		case "IntervalSeconds", "MaxAttempts", "MaxDelaySeconds":
			n, ok := asInt(e)
			if !ok || n < 0 || (k != "MaxAttempts" && n < 1) || n > 99999999 {
				return retrier{}, schemaErr(at+"/"+k, "%s must be an integer in range", k)
			}
			switch k {
			case "IntervalSeconds":
				r.IntervalSeconds = n
			case "MaxAttempts":
				r.MaxAttempts = n
			default:
				r.MaxDelaySeconds = n
			}
		case "BackoffRate":
			num, ok := e.(json.Number)
			f, err := num.Float64()
			if !ok || err != nil || f < 1.0 {
				return retrier{}, schemaErr(at+"/BackoffRate", "BackoffRate must be a number ≥ 1.0")
			}
			r.BackoffRate = f
		case "JitterStrategy":
			switch e {
			case "FULL":
				r.JitterFull = true
			case "NONE":
			default:
				return retrier{}, schemaErr(at+"/JitterStrategy", "JitterStrategy must be FULL or NONE")
			}
		default:
			return retrier{}, schemaErr(at+"/"+k, "the field '%s' is not supported in a retrier", k)
		}
	}
	eq, err := parseErrorEquals(m["ErrorEquals"], at, last)
	if err != nil {
		return retrier{}, err
	}
	r.ErrorEquals = eq
	return r, nil
}

func optDataPath(m map[string]any, field, at string, reference bool) (*dataPath, error) {
	v, ok := m[field]
	if !ok {
		return nil, nil
	}
	if v == nil {
		return &dataPath{null: true}, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, schemaErr(at+"/"+field, "%s must be a string or null", field)
	}
	var p *jsonPath
	var err error
	if reference {
		p, err = parseReferencePath(s, false)
	} else {
		p, err = parsePath(s)
	}
	if err != nil {
		return nil, schemaErr(at+"/"+field, "%v", err)
	}
	return &dataPath{path: p}, nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// checkDuplicateKeys rejects a JSON text in which an object repeats a key (DUPLICATE_STATE_NAME under
// /States, SCHEMA_VALIDATION_FAILED elsewhere).
func checkDuplicateKeys(data []byte) *DefinitionError {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var walk func(at string) *DefinitionError
	walk = func(at string) *DefinitionError {
		tok, err := dec.Token()
		if err != nil {
			return &DefinitionError{Code: "INVALID_JSON_DESCRIPTION", Detail: err.Error(), At: at}
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return nil
		}
		switch d {
		case '{':
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return &DefinitionError{Code: "INVALID_JSON_DESCRIPTION", Detail: err.Error(), At: at}
				}
				k, _ := kt.(string)
				if seen[k] {
					code := "SCHEMA_VALIDATION_FAILED"
					if at == "/States" {
						code = "DUPLICATE_STATE_NAME"
					}
					return &DefinitionError{Code: code, Detail: fmt.Sprintf("Duplicate key '%s'", k), At: at + "/" + k}
				}
				seen[k] = true
				child := at + "/" + k
				if at == "/" {
					child = "/" + k
				}
				if e := walk(child); e != nil {
					return e
				}
			}
		case '[':
			for i := 0; dec.More(); i++ {
				if e := walk(fmt.Sprintf("%s/%d", at, i)); e != nil {
					return e
				}
			}
		}
		_, _ = dec.Token() // closing delimiter
		return nil
	}
	return walk("/")
}
