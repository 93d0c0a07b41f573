package template

import (
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
