// Package template reads the SAM template (template.yaml) with goformation and gives the local stack what it
// needs from it: the table definition as a CreateTableInput, the state machines with their
// DefinitionSubstitutions resolved to local ARNs, the Activities to create and the functions to host.
//
// Local names follow docs/internals.md "Local ARNs and names": every resource is named after its logical ID,
// in account 000000000000 and region us-east-1. While parsing, Ref, Fn::GetAtt and Fn::Sub are resolved with
// goformation's IntrinsicHandlerOverrides:
//
//   - Ref of a function (AWS::Serverless::Function, AWS::Lambda::Function) → its name (the logical ID);
//   - Ref of an Activity or a state machine → its local ARN;
//   - Ref of a table → its local table name (the logical ID unless WithTableName says otherwise);
//   - Ref of a parameter → its Default; Ref of AWS::AccountId, AWS::Region, AWS::Partition, AWS::URLSuffix,
//     AWS::StackName → the local values;
//   - Fn::GetAtt X.Arn → the local ARN by resource type, X.Name → the local name;
//   - Fn::Sub → each ${X} as Ref X and ${X.Attr} as Fn::GetAtt X.Attr with the rules above (goformation's own
//     Fn::Sub ignores the overrides), names of the list form's variables → their values, ${!X} → ${X}.
//
// A value that resolves to nothing becomes "" (an unknown name or attribute); Render reports an empty
// substitution as an error, so such a mistake fails loudly. goformation does not merge Globals; Functions merges
// the Globals.Function environment itself. SAM policy templates are not interpreted.
//
// The package does not create anything: local/ddblocal creates the table, local/sfn the state machines and
// Activities, local/lambdahost hosts the functions.
package template
