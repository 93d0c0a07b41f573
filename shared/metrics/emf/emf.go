package emf

import (
	"context"
	"encoding/json"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/baton-run/baton/shared/engine"
)

// Namespace is the CloudWatch namespace of Baton's metrics.
const Namespace = "Baton"

// UnitCount is the unit of every engine measurement.
const UnitCount = "Count"

// Writer writes one EMF line per engine.Measurement. It implements engine.Metrics and is safe for concurrent use.
// Create it with New.
type Writer struct {
	mu        sync.Mutex
	w         io.Writer
	namespace string
	clock     func() time.Time
}

var _ engine.Metrics = (*Writer)(nil)

// New returns a Writer on w with namespace Namespace; clock nil means time.Now.
func New(w io.Writer, clock func() time.Time) *Writer {
	if clock == nil {
		clock = time.Now
	}
	return &Writer{w: w, namespace: Namespace, clock: clock}
}

// Directive is the `_aws` member of an EMF line: Timestamp in milliseconds since the Unix epoch and one metric
// directive.
type Directive struct {
	Timestamp         int64             `json:"Timestamp"`
	CloudWatchMetrics []MetricDirective `json:"CloudWatchMetrics"`
}

// MetricDirective says which top-level members are metrics (Metrics) and which are dimensions (Dimensions: one
// dimension set holding every dimension of the measurement, sorted by name) in Namespace.
type MetricDirective struct {
	Namespace  string             `json:"Namespace"`
	Dimensions [][]string         `json:"Dimensions"`
	Metrics    []MetricDefinition `json:"Metrics"`
}

// MetricDefinition names a metric and its unit.
type MetricDefinition struct {
	Name string `json:"Name"`
	Unit string `json:"Unit"`
}

// Record writes m as one line: {"_aws":{…},"<Name>":Count,"<Dimension>":"<value>",…,"session_id","turn_id"}
// (the ids only when set; they are properties, searchable in CloudWatch Logs Insights, never dimensions). A write
// error is dropped: metrics never fail the operation they describe.
func (x *Writer) Record(_ context.Context, m engine.Measurement) {
	line := map[string]any{}
	dims := make([]string, 0, len(m.Dimensions))
	for k, v := range m.Dimensions {
		dims = append(dims, k)
		line[k] = v
	}
	sort.Strings(dims)
	if m.SessionID != "" {
		line["session_id"] = m.SessionID
	}
	if m.TurnID != "" {
		line["turn_id"] = m.TurnID
	}
	line[m.Name] = m.Count
	line["_aws"] = Directive{
		Timestamp: x.clock().UnixMilli(),
		CloudWatchMetrics: []MetricDirective{{
			Namespace:  x.namespace,
			Dimensions: [][]string{dims},
			Metrics:    []MetricDefinition{{Name: m.Name, Unit: UnitCount}},
		}},
	}
	b, err := json.Marshal(line)
	if err != nil {
		return
	}
	b = append(b, '\n')
	x.mu.Lock()
	defer x.mu.Unlock()
	_, _ = x.w.Write(b)
}
