package template

import (
	"regexp"
	"strings"

	"github.com/awslabs/goformation/v7/intrinsics"
)

// resolver implements Ref and Fn::GetAtt for goformation's IntrinsicHandlerOverrides. The tmpl argument of
// a handler is the whole template as decoded JSON (before intrinsics are processed), so resource types come
// from tmpl["Resources"][id]["Type"].
type resolver struct {
	tableNames map[string]string
}

// ref resolves {"Ref": id}: pseudo parameters to local values, resources to their local name or ARN (what
// CloudFormation's Ref returns for that type), parameters to their Default (goformation's own Ref).
func (r *resolver) ref(name string, input any, tmpl any) any {
	id, ok := input.(string)
	if !ok {
		return nil
	}
	switch id {
	case "AWS::AccountId":
		return LocalAccountID
	case "AWS::Region":
		return LocalRegion
	case "AWS::Partition":
		return LocalPartition
	case "AWS::URLSuffix":
		return "amazonaws.com"
	case "AWS::StackName":
		return LocalStackName
	case "AWS::StackId":
		return "arn:" + LocalPartition + ":cloudformation:" + LocalRegion + ":" + LocalAccountID + ":stack/" + LocalStackName + "/local"
	}
	if typ := resourceTypeIn(tmpl, id); typ != "" {
		return r.refResource(id, typ)
	}
	return intrinsics.Ref(name, input, tmpl)
}

func (r *resolver) refResource(id, typ string) any {
	switch typ {
	case typeServerlessFunction, typeLambdaFunction:
		return id
	case typeActivity:
		return ActivityARN(id)
	case typeServerlessStateMachine, typeStateMachine:
		return StateMachineARN(id)
	case typeTable:
		return r.tableName(id)
	default:
		// Clusters, log groups, roles, task definitions, APIs …: a stable name is enough locally.
		return id
	}
}

// getAtt resolves {"Fn::GetAtt": "X.Attr"} and {"Fn::GetAtt": ["X", "Attr"]}. Arn and Name are resolved by
// resource type; any other attribute resolves to nil, as with goformation's default handler.
func (r *resolver) getAtt(_ string, input any, tmpl any) any {
	var id, attr string
	switch v := input.(type) {
	case string:
		id, attr, _ = strings.Cut(v, ".")
	case []any:
		if len(v) != 2 {
			return nil
		}
		id, _ = v[0].(string)
		attr, _ = v[1].(string)
	}
	typ := resourceTypeIn(tmpl, id)
	if typ == "" {
		return nil
	}
	switch attr {
	case "Arn":
		switch typ {
		case typeServerlessFunction, typeLambdaFunction:
			return FunctionARN(id)
		case typeActivity:
			return ActivityARN(id)
		case typeServerlessStateMachine, typeStateMachine:
			return StateMachineARN(id)
		case typeTable:
			return TableARN(r.tableName(id))
		case typeRole:
			return "arn:" + LocalPartition + ":iam::" + LocalAccountID + ":role/" + id
		case typeLogGroup:
			return genericARN("logs", "log-group:"+id)
		default:
			return genericARN("local", id)
		}
	case "Name":
		if typ == typeTable {
			return r.tableName(id)
		}
		return id
	}
	return nil
}

func (r *resolver) tableName(id string) string {
	if n, ok := r.tableNames[id]; ok {
		return n
	}
	return id
}

// resourceTypeIn returns the Type of resource id in the decoded template, or "".
func resourceTypeIn(tmpl any, id string) string {
	res := mapOf(mapOf(mapOf(tmpl)["Resources"])[id])
	typ, _ := res["Type"].(string)
	return typ
}

// subVar matches a ${…} variable of Fn::Sub; ${!Literal} is the escape for a literal ${Literal}.
var subVar = regexp.MustCompile(`\$\{([^}]*)\}`)

// sub resolves {"Fn::Sub": "…"} and {"Fn::Sub": ["…", {vars}]} with this resolver's Ref and Fn::GetAtt, so a
// resource reference inside !Sub gets its local name or ARN like a bare !Ref or !GetAtt: ${X} is Ref X,
// ${X.Attr} is Fn::GetAtt X.Attr, a name in vars takes its value, ${!Literal} stays a literal ${Literal}. A
// variable that resolves to nothing (an unknown name or attribute) makes the whole value nil, as an unresolvable
// Ref does.
func (r *resolver) sub(name string, input any, tmpl any) any {
	var text string
	vars := map[string]any{}
	switch v := input.(type) {
	case string:
		text = v
	case []any:
		if len(v) != 2 {
			return nil
		}
		text, _ = v[0].(string)
		for k, val := range mapOf(v[1]) {
			vars[k] = r.resolveValue(val, tmpl)
		}
	default:
		return nil
	}
	failed := false
	out := subVar.ReplaceAllStringFunc(text, func(m string) string {
		inner := m[2 : len(m)-1]
		if lit, ok := strings.CutPrefix(inner, "!"); ok {
			return "${" + lit + "}"
		}
		var val any
		if v, ok := vars[inner]; ok {
			val = v
		} else if id, attr, ok := strings.Cut(inner, "."); ok && !strings.HasPrefix(inner, "AWS::") {
			val = r.getAtt(name, []any{id, attr}, tmpl)
		} else {
			val = r.ref(name, inner, tmpl)
		}
		s, ok := val.(string)
		if !ok {
			failed = true
			return ""
		}
		return s
	})
	if failed {
		return nil
	}
	return out
}

// resolveValue resolves a Fn::Sub variable's value: a string as is, a {"Ref"} or {"Fn::GetAtt"} object with
// this resolver; anything else is nil.
func (r *resolver) resolveValue(v any, tmpl any) any {
	switch x := v.(type) {
	case string:
		return x
	case map[string]any:
		if ref, ok := x["Ref"]; ok {
			return r.ref("Ref", ref, tmpl)
		}
		if att, ok := x["Fn::GetAtt"]; ok {
			return r.getAtt("Fn::GetAtt", att, tmpl)
		}
	}
	return nil
}
