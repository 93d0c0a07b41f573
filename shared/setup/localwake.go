package setup

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// Local wake (docs/configuration.md BATON_LOCAL_WAKE_URL): a runtime of the local stack reports each commit to a
// Session to the launcher, which wakes its event streams of that Session (engine.Engine.Committed). Best effort: a
// report that cannot be sent is dropped, and the stream finds the commit by its next poll.
const (
	// localWakeQueue is how many reports may wait for the sender; more are dropped.
	localWakeQueue = 256
	// localWakeTimeout bounds one report.
	localWakeTimeout = 2 * time.Second
)

// localWake returns an engine.Options.CommitListener that reports commits to endpoint with
// POST <endpoint>?session_id=<id>, from one goroutine that lives as long as the process; nil when endpoint is "".
// The listener never blocks: a report that finds the queue full is dropped.
func localWake(endpoint string) func(sessionID string) {
	if endpoint == "" {
		return nil
	}
	queue := make(chan string, localWakeQueue)
	client := &http.Client{Timeout: localWakeTimeout}
	go func() {
		for id := range queue {
			req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, endpoint+"?session_id="+url.QueryEscape(id), nil)
			if err != nil {
				continue
			}
			if resp, err := client.Do(req); err == nil {
				_ = resp.Body.Close()
			}
		}
	}()
	return func(sessionID string) {
		select {
		case queue <- sessionID:
		default:
		}
	}
}
