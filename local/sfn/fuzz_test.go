package sfn

import "testing"

// FuzzParsePath checks that the JSONPath parser never panics and that whatever it accepts evaluates
// without panicking on a small document.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"$", "$.a", "$$.Task.Token", "$.a[0,1]", "$.a[-3:]", "$..g", "$['x y']", "$.a[?(@.b)]", "$[", "$.a[1:2:3]"} {
		f.Add(s)
	}
	doc, _ := decodeJSON([]byte(`{"a":[1,{"g":2},[3]],"x y":{"g":null}}`))
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parsePath(s)
		if err != nil {
			return
		}
		_, _ = p.eval(doc, doc)
		if p.definite() && !p.context {
			_, _ = p.setPath(doc, 1)
		}
	})
}

// FuzzParseDefinition checks that definition parsing (paths, templates, intrinsics, choice rules) never
// panics and that every rejection is a *DefinitionError.
func FuzzParseDefinition(f *testing.F) {
	for _, s := range []string{
		`{"StartAt":"A","States":{"A":{"Type":"Pass","End":true}}}`,
		`{"StartAt":"A","States":{"A":{"Type":"Pass","Parameters":{"a.$":"States.Format('{}', $.x)"},"End":true}}}`,
		`{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Not":{"Variable":"$.a","StringMatches":"x*"},"Next":"C"}]}}}`,
		`{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"f"},"Retry":[{"ErrorEquals":["States.ALL"]}],"End":true}}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, err := parseDefinition(s)
		if err != nil {
			if _, ok := err.(*DefinitionError); !ok {
				t.Fatalf("rejection %v is a %T, not a *DefinitionError", err, err)
			}
		}
	})
}

// FuzzParseIntrinsic checks the intrinsic parser and evaluator never panic.
func FuzzParseIntrinsic(f *testing.F) {
	for _, s := range []string{"States.Format('a{}b', $.x)", "States.Array()", "States.ArrayRange(0, 10, 3)", "States.MathAdd(1, -2)", "States.Format('\\{', 1"} {
		f.Add(s)
	}
	doc, _ := decodeJSON([]byte(`{"x":"s","a":[1,2]}`))
	f.Fuzz(func(t *testing.T, s string) {
		c, err := parseIntrinsic(s)
		if err != nil {
			return
		}
		_, _ = c.eval(doc, doc)
	})
}
