package metrics

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"sync"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"
)

// Counters is a set of named monotonic counters, safe for concurrent use. The zero value is ready.
type Counters struct {
	mu sync.Mutex
	m  map[string]int64
}

// Default counts the AWS requests of this process when its clients were built with Middleware.
var Default = &Counters{}

// Add adds n to the named counter.
func (c *Counters) Add(name string, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]int64{}
	}
	c.m[name] += n
}

// Snapshot returns a copy of every counter.
func (c *Counters) Snapshot() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int64, len(c.m))
	for k, v := range c.m {
		out[k] = v
	}
	return out
}

// Diff returns after − before for every counter that changed, sorted keys implied by the map.
func Diff(before, after map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// Names returns the counter names in order.
func Names(m map[string]int64) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Middleware is an aws-sdk-go-v2 API option that counts each request attempt's operation in Default as
// "<ServiceID>.<Operation>". Add it with config.APIOptions = append(config.APIOptions, metrics.Middleware).
func Middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("BatonRequestCounter",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			Default.Add(awsmiddleware.GetServiceID(ctx)+"."+awsmiddleware.GetOperationName(ctx), 1)
			return next.HandleInitialize(ctx, in)
		}), middleware.After)
}

// Handler serves Default's snapshot as a JSON object.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(Default.Snapshot())
	})
}
