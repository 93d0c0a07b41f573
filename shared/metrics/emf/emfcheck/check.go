package emfcheck

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/baton-run/baton/shared/metrics/emf"
)

//go:embed emf.schema.json
var schemaJSON []byte

var (
	schemaOnce sync.Once
	schema     *jsonschema.Schema
	schemaErr  error
)

func compiled() (*jsonschema.Schema, error) {
	schemaOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
		if err != nil {
			schemaErr = err
			return
		}
		c := jsonschema.NewCompiler()
		const loc = "urn:baton:emf"
		if schemaErr = c.AddResource(loc, doc); schemaErr != nil {
			return
		}
		schema, schemaErr = c.Compile(loc)
	})
	return schema, schemaErr
}

// Check decodes one EMF line and verifies the structure CloudWatch requires to extract metrics from it: the
// schema emf.schema.json (the `_aws` member, Timestamp, CloudWatchMetrics[{Namespace, Dimensions, Metrics[{Name,
// Unit}]}]) and, beyond what a schema can say, that every metric a directive names is a top-level number and every
// dimension a top-level string. It returns the decoded object. Errors name the first violation.
func Check(line []byte) (map[string]any, error) {
	sch, err := compiled()
	if err != nil {
		return nil, fmt.Errorf("emf schema: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return nil, fmt.Errorf("not EMF: %w", err)
	}
	var obj map[string]any
	if err := json.Unmarshal(line, &obj); err != nil {
		return nil, err
	}
	var meta struct {
		CloudWatchMetrics []emf.MetricDirective `json:"CloudWatchMetrics"`
	}
	raw, _ := json.Marshal(obj["_aws"])
	if err := json.Unmarshal(raw, &meta); err != nil {
		return nil, err
	}
	for _, d := range meta.CloudWatchMetrics {
		for _, set := range d.Dimensions {
			for _, name := range set {
				if _, ok := obj[name].(string); !ok {
					return nil, fmt.Errorf("dimension %q is not a top-level string member", name)
				}
			}
		}
		for _, m := range d.Metrics {
			if _, ok := obj[m.Name].(float64); !ok {
				return nil, fmt.Errorf("metric %q is not a top-level number member", m.Name)
			}
		}
	}
	return obj, nil
}
