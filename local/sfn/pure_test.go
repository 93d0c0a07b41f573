package sfn

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func mustJSON(t *testing.T, s string) any {
	t.Helper()
	v, err := decodeJSON([]byte(s))
	if err != nil {
		t.Fatalf("decode %q: %v", s, err)
	}
	return v
}

func TestPathEval(t *testing.T) {
	t.Parallel()
	input := `{"a":[1,2,3],"b":{"c":"x","d":null},"e":{"f":{"g":1},"h":{"g":2}},"odd key":5}`
	cases := []struct {
		name, path string
		want       string // JSON; empty means a miss
	}{
		{"root", "$", input},
		{"field", "$.b.c", `"x"`},
		{"null field is present", "$.b.d", `null`},
		{"bracket name", "$['odd key']", `5`},
		{"index", "$.a[0]", `1`},
		{"negative index", "$.a[-1]", `3`},
		{"slice tail", "$.a[-2:]", `[2,3]`},
		{"slice head", "$.a[:2]", `[1,2]`},
		{"union", "$.a[0,2]", `[1,3]`},
		{"wildcard array", "$.a[*]", `[1,2,3]`},
		{"recursive descent", "$..g", `[1,2]`},
		{"missing field", "$.nope", ``},
		{"index out of range", "$.a[9]", ``},
		{"indefinite miss is an empty array", "$.a[5:]", `[]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := parsePath(tc.path)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			got, err := p.eval(mustJSON(t, input), nil)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("got %v, want a miss", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("eval: %v", err)
			}
			if d := cmp.Diff(mustJSON(t, tc.want), got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestPathRejects(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"a.b", "$.a[?(@.x>1)]", "$.a.length()", "$.", "$[", "$.a[x]"} {
		if _, err := parsePath(p); err == nil {
			t.Errorf("parsePath(%q) accepted", p)
		}
	}
	for _, p := range []string{"$.a[*]", "$$.Execution", "$.a[0,1]"} {
		if _, err := parseReferencePath(p, false); err == nil {
			t.Errorf("parseReferencePath(%q) accepted", p)
		}
	}
}

func TestSetPath(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, path, input, value, want string
		wantErr                        bool
	}{
		{"replace root", "$", `{"a":1}`, `2`, `2`, false},
		{"overwrite", "$.a", `{"a":1}`, `2`, `{"a":2}`, false},
		{"create intermediates", "$.x.y.z", `{"a":1}`, `true`, `{"a":1,"x":{"y":{"z":true}}}`, false},
		{"into an array element", "$.a[1].k", `{"a":[{},{}]}`, `1`, `{"a":[{},{"k":1}]}`, false},
		{"into a string fails", "$.x", `"foo"`, `1`, ``, true},
		{"index out of range fails", "$.a[3]", `{"a":[]}`, `1`, ``, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := parseReferencePath(tc.path, false)
			if err != nil {
				t.Fatal(err)
			}
			in := mustJSON(t, tc.input)
			got, err := p.setPath(in, mustJSON(t, tc.value))
			if tc.wantErr {
				if err == nil {
					t.Fatalf("got %v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(mustJSON(t, tc.want), got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if d := cmp.Diff(mustJSON(t, tc.input), in); d != "" {
				t.Errorf("the input was modified:\n%s", d)
			}
		})
	}
}

func TestTemplates(t *testing.T) {
	t.Parallel()
	ctx := mustJSON(t, `{"Execution":{"Name":"run-1-x"},"StateMachine":{"Name":"sm-a"}}`)
	cases := []struct {
		name, tpl, input, want, wantErr string
	}{
		{"spec example", `{"flagged":true,"parts":{"first.$":"$.vals[0]","last3.$":"$.vals[-3:]"}}`, `{"flagged":7,"vals":[0,10,20,30,40,50]}`, `{"flagged":true,"parts":{"first":0,"last3":[30,40,50]}}`, ""},
		{"inside arrays", `{"l":[{"v.$":"$.x"}]}`, `{"x":1}`, `{"l":[{"v":1}]}`, ""},
		{"context path", `{"n.$":"$$.Execution.Name"}`, `{}`, `{"n":"run-1-x"}`, ""},
		{"Format escapes", `{"s.$":"States.Format('{} {}\\'s playlist.', $.a, $.b)"}`, `{"a":"Jane","b":"Doe"}`, `{"s":"Jane Doe's playlist."}`, ""},
		{"Format escaped braces", `{"s.$":"States.Format('\\{\\} {}', 1)"}`, `{}`, `{"s":"{} 1"}`, ""},
		{"StringToJson", `{"j.$":"States.StringToJson($.s)"}`, `{"s":"{\"number\": 20}"}`, `{"j":{"number":20}}`, ""},
		{"JsonToString compact", `{"s.$":"States.JsonToString($.o)"}`, `{"o":{"name":"Foo","year":2020}}`, `{"s":"{\"name\":\"Foo\",\"year\":2020}"}`, ""},
		{"Array", `{"a.$":"States.Array('Foo', 2020, $.o, null)"}`, `{"o":{"k":1}}`, `{"a":["Foo",2020,{"k":1},null]}`, ""},
		{"empty Array", `{"a.$":"States.Array()"}`, `{}`, `{"a":[]}`, ""},
		{"nested ArrayGetItem StringSplit", `{"a.$":"States.ArrayGetItem(States.StringSplit($$.StateMachine.Name, '-'), 0)"}`, `{}`, `{"a":"sm"}`, ""},
		{"StringSplit drops empty pieces", `{"a.$":"States.StringSplit($.s, ',')"}`, `{"s":",,1,,2,"}`, `{"a":["1","2"]}`, ""},
		{"ArrayRange", `{"a.$":"States.ArrayRange(0, 10, 3)"}`, `{}`, `{"a":[0,3,6,9]}`, ""},
		{"ArrayPartition", `{"a.$":"States.ArrayPartition($.a, 2)"}`, `{"a":[0,1,2]}`, `{"a":[[0,1],[2]]}`, ""},
		{"ArrayContains deep", `{"a.$":"States.ArrayContains($.a, $.b)"}`, `{"a":[[1,2,3],2],"b":[1,2,3]}`, `{"a":true}`, ""},
		{"ArrayUnique", `{"a.$":"States.ArrayUnique($.a)"}`, `{"a":[1,2,1,"1"]}`, `{"a":[1,2,"1"]}`, ""},
		{"ArrayLength", `{"a.$":"States.ArrayLength($.a)"}`, `{"a":[1,2]}`, `{"a":2}`, ""},
		{"JsonMerge shallow", `{"a.$":"States.JsonMerge($.x, $.y, false)"}`, `{"x":{"a":{"a1":1},"b":2},"y":{"a":{"a3":1},"c":3}}`, `{"a":{"a":{"a3":1},"b":2,"c":3}}`, ""},
		{"MathAdd", `{"a.$":"States.MathAdd($.n, -1)"}`, `{"n":111}`, `{"a":110}`, ""},
		{"Base64 round trip", `{"a.$":"States.Base64Decode(States.Base64Encode('Data to encode'))"}`, `{}`, `{"a":"Data to encode"}`, ""},
		{"Hash", `{"a.$":"States.Hash('input data', 'SHA-1')"}`, `{}`, `{"a":"aaff4a450a104cd177d28d18d74485e8cae074b7"}`, ""},
		{"missing path is States.Runtime", `{"v.$":"$.missing"}`, `{}`, ``, errRuntime},
		{"Format count mismatch", `{"v.$":"States.Format('{} {}', 1)"}`, `{}`, ``, errIntrinsicFailure},
		{"StringToJson bad JSON", `{"v.$":"States.StringToJson($.s)"}`, `{"s":"{"}`, ``, errIntrinsicFailure},
		{"ArrayGetItem out of range", `{"v.$":"States.ArrayGetItem($.a, 5)"}`, `{"a":[1]}`, ``, errIntrinsicFailure},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tpl, err := compileTemplate(mustJSON(t, tc.tpl), "/Parameters")
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			got, err := tpl.eval(mustJSON(t, tc.input), ctx)
			if tc.wantErr != "" {
				se, ok := err.(*stateError)
				if !ok || deref(se.Name) != tc.wantErr {
					t.Fatalf("got %v / %v, want %s", got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(mustJSON(t, tc.want), got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestUUIDShape(t *testing.T) {
	t.Parallel()
	tpl, err := compileTemplate(mustJSON(t, `{"u.$":"States.UUID()"}`), "/")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := tpl.eval(nil, nil)
	b, _ := tpl.eval(nil, nil)
	ua, ub := a.(map[string]any)["u"].(string), b.(map[string]any)["u"].(string)
	if len(ua) != 36 || ua[14] != '4' || ua == ub {
		t.Errorf("UUIDs %q %q", ua, ub)
	}
}

func TestChoiceRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, rule, input string
		want              bool
		wantErr           bool
	}{
		{"StringLessThan", `{"Variable":"$.v","StringLessThan":"b"}`, `{"v":"a"}`, true, false},
		{"StringGreaterThanEquals equal", `{"Variable":"$.v","StringGreaterThanEquals":"a"}`, `{"v":"a"}`, true, false},
		{"NumericLessThanEquals", `{"Variable":"$.v","NumericLessThanEquals":1.5}`, `{"v":1.5}`, true, false},
		{"NumericEquals on false", `{"Variable":"$.v","NumericEquals":0}`, `{"v":false}`, false, false},
		{"StringEqualsPath", `{"Variable":"$.v","StringEqualsPath":"$.w"}`, `{"v":"x","w":"x"}`, true, false},
		{"TimestampEquals across zones", `{"Variable":"$.v","TimestampEquals":"2020-01-01T00:00:00Z"}`, `{"v":"2020-01-01T01:00:00+01:00"}`, true, false},
		{"TimestampLessThanPath", `{"Variable":"$.v","TimestampLessThanPath":"$.w"}`, `{"v":"2020-01-01T00:00:00Z","w":"2021-01-01T00:00:00Z"}`, true, false},
		{"IsNumeric on a string", `{"Variable":"$.v","IsNumeric":true}`, `{"v":"1"}`, false, false},
		{"IsString on a timestamp", `{"Variable":"$.v","IsString":true}`, `{"v":"2020-01-01T00:00:00Z"}`, true, false},
		{"IsBoolean", `{"Variable":"$.v","IsBoolean":true}`, `{"v":false}`, true, false},
		{"IsTimestamp", `{"Variable":"$.v","IsTimestamp":true}`, `{"v":"2020-01-01T00:00:00Z"}`, true, false},
		{"StringMatches escaped backslash", `{"Variable":"$.v","StringMatches":"a\\\\*"}`, `{"v":"a\\xyz"}`, true, false},
		{"StringMatches middle stars", `{"Variable":"$.v","StringMatches":"*a*b*"}`, `{"v":"xxaxxbxx"}`, true, false},
		{"StringMatches no match", `{"Variable":"$.v","StringMatches":"a*b"}`, `{"v":"ab-c"}`, false, false},
		{"Or short-circuits before a missing path", `{"Or":[{"Variable":"$.a","IsPresent":false},{"Variable":"$.a","StringEquals":"x"}]}`, `{}`, true, false},
		{"missing path fails", `{"Variable":"$.a","NumericEquals":1}`, `{}`, false, true},
		{"missing operand path fails", `{"Variable":"$.a","NumericEqualsPath":"$.b"}`, `{"a":1}`, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := compileChoiceRule(mustJSON(t, tc.rule), "/", false)
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			got, err := r.eval(mustJSON(t, tc.input), nil)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("got %v, %v; want %v, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestChoiceRuleRejects(t *testing.T) {
	t.Parallel()
	for _, rule := range []string{
		`{"Variable":"$.v"}`,
		`{"Variable":"$.v","StringEquals":1}`,
		`{"Variable":"$.v","NumericEquals":"1"}`,
		`{"Variable":"$.v","StringEquals":"a","NumericEquals":1}`,
		`{"Variable":"$.v","TimestampEquals":"2020-01-01"}`,
		`{"Variable":"$.v","StringMatches":"a\\"}`,
		`{"And":[]}`,
		`{"Variable":"$.v","Nope":1}`,
	} {
		if _, err := compileChoiceRule(mustJSON(t, rule), "/", false); err == nil {
			t.Errorf("accepted %s", rule)
		}
	}
}

func TestRetryDelay(t *testing.T) {
	t.Parallel()
	secs := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	cases := []struct {
		name string
		r    retrier
		want []time.Duration
	}{
		{"defaults double", retrier{IntervalSeconds: 1, BackoffRate: 2}, []time.Duration{secs(1), secs(2), secs(4)}},
		{"DG I=3 B=1.5", retrier{IntervalSeconds: 3, BackoffRate: 1.5}, []time.Duration{secs(3), secs(4.5)}},
		{"spec MaxDelaySeconds caps", retrier{IntervalSeconds: 3, BackoffRate: 2, MaxDelaySeconds: 4}, []time.Duration{secs(3), secs(4), secs(4)}},
		{"FULL jitter scales by the draw", retrier{IntervalSeconds: 4, BackoffRate: 1, JitterFull: true}, []time.Duration{secs(2), secs(2)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []time.Duration
			for k := range tc.want {
				got = append(got, retryDelay(tc.r, int64(k+1), func() float64 { return 0.5 }))
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestErrorMatches(t *testing.T) {
	t.Parallel()
	timeout := &stateError{Name: strPtr(errTimeout)}
	hb := &stateError{Name: strPtr(errTimeout), Heartbeat: true}
	custom := newStateError("Custom", "")
	runtime := newStateError(errRuntime, "")
	cases := []struct {
		name   string
		equals []string
		err    *stateError
		want   bool
	}{
		{"ALL matches custom", []string{errAll}, custom, true},
		{"ALL never matches Runtime", []string{errAll}, runtime, false},
		{"explicit Runtime never matches", []string{errRuntime}, runtime, false},
		{"TaskFailed matches custom", []string{errTaskFailed}, custom, true},
		{"TaskFailed skips Timeout", []string{errTaskFailed}, timeout, false},
		{"HeartbeatTimeout matches a heartbeat timeout", []string{errHeartbeatTimeout}, hb, true},
		{"HeartbeatTimeout skips a task timeout", []string{errHeartbeatTimeout}, timeout, false},
		{"Timeout matches a heartbeat timeout", []string{errTimeout}, hb, true},
		{"names are case-sensitive", []string{"custom"}, custom, false},
	}
	for _, tc := range cases {
		if got := errorMatches(tc.equals, tc.err); got != tc.want {
			t.Errorf("%s: got %v", tc.name, got)
		}
	}
}

func TestParseDefinitionErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, def, code, at string }{
		{"not JSON", `{`, "INVALID_JSON_DESCRIPTION", "/"},
		{"missing States", `{"StartAt":"A"}`, "SCHEMA_VALIDATION_FAILED", "/"},
		{"dangling Next", `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"B"}}}`, "MISSING_TRANSITION_TARGET", "/States/A/Next"},
		{"Map", `{"StartAt":"A","States":{"A":{"Type":"Map","End":true}}}`, "SCHEMA_VALIDATION_FAILED", "/States/A/Type"},
		{"both Next and End", `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"A","End":true}}}`, "SCHEMA_VALIDATION_FAILED", "/States/A"},
		{"End on Choice", `{"StartAt":"A","States":{"A":{"Type":"Choice","Choices":[{"Variable":"$.a","IsNull":true,"Next":"A"}],"End":true}}}`, "SCHEMA_VALIDATION_FAILED", "/States/A/End"},
		{"Wait with two fields", `{"StartAt":"A","States":{"A":{"Type":"Wait","Seconds":1,"SecondsPath":"$.s","End":true}}}`, "SCHEMA_VALIDATION_FAILED", "/States/A"},
		{"TimeoutSeconds and path", `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"arn:aws:states:us-east-1:123456789012:activity:x","TimeoutSeconds":1,"TimeoutSecondsPath":"$.t","End":true}}}`, "SCHEMA_VALIDATION_FAILED", "/States/A/TimeoutSecondsPath"},
		{"ResultPath on the context", `{"StartAt":"A","States":{"A":{"Type":"Pass","ResultPath":"$$.x","End":true}}}`, "SCHEMA_VALIDATION_FAILED", "/States/A/ResultPath"},
		{"lambda:invoke without FunctionName", `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","End":true}}}`, "SCHEMA_VALIDATION_FAILED", "/States/A/Parameters"},
		{"Credentials field", `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"f"},"Credentials":{},"End":true}}}`, "SCHEMA_VALIDATION_FAILED", "/States/A/Credentials"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseDefinition(tc.def)
			de, ok := err.(*DefinitionError)
			if !ok {
				t.Fatalf("got %v, want a *DefinitionError", err)
			}
			if d := cmp.Diff([]string{tc.code, tc.at}, []string{de.Code, de.At}); d != "" {
				t.Errorf("(-want +got):\n%s\n%s", d, de.Error())
			}
		})
	}
}

func TestTokenRoundTrip(t *testing.T) {
	t.Parallel()
	c := tokenClaims{Execution: "arn:aws:states:us-east-1:1:execution:m:e", State: "S", Attempt: 2, Nonce: "n"}
	got, ok := parseToken(mintToken(c))
	if !ok {
		t.Fatal("minted token does not parse")
	}
	if d := cmp.Diff(c, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, bad := range []string{"", "FakeTaskToken", "v1.!!!", "v1." + "e30"} {
		if _, ok := parseToken(bad); ok {
			t.Errorf("parseToken(%q) accepted", bad)
		}
	}
}
