package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// countingProxy forwards to named AWS endpoints and counts requests by "<service>.<operation>", read from the
// X-Amz-Target header of the JSON protocols (DynamoDB_20120810.GetItem → DynamoDB.GetItem,
// AWSStepFunctions.SendTaskSuccess → SFN.SendTaskSuccess).
type countingProxy struct {
	mu      sync.Mutex
	counts  map[string]int64
	servers []*http.Server
	urls    map[string]string
}

// newCountingProxy listens on one loopback port per named target.
func newCountingProxy(targets map[string]string) (*countingProxy, error) {
	p := &countingProxy{counts: map[string]int64{}, urls: map[string]string{}}
	for name, target := range targets {
		u, err := url.Parse(target)
		if err != nil {
			return nil, err
		}
		rp := httputil.NewSingleHostReverseProxy(u)
		rp.FlushInterval = -1
		rp.ErrorLog = log.New(io.Discard, "", 0) // polls cut short when a runtime stops are expected
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			p.Close()
			return nil, err
		}
		rp.ModifyResponse = func(resp *http.Response) error {
			op := resp.Request.Header.Get(capacityHeader)
			if op == "" {
				return nil
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return err
			}
			resp.Body = io.NopCloser(bytes.NewReader(body))
			p.addCapacity(op, body)
			return nil
		}
		srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			target := r.Header.Get("X-Amz-Target")
			p.count(target)
			if err := askCapacity(r, target); err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			rp.ServeHTTP(w, r)
		})}
		go func() { _ = srv.Serve(ln) }()
		p.servers = append(p.servers, srv)
		p.urls[name] = "http://" + ln.Addr().String()
	}
	return p, nil
}

func (p *countingProxy) URL(name string) string { return p.urls[name] }

// capacityHeader marks, between the proxy's request and response handlers, a DynamoDB request whose consumed
// capacity the proxy asked for; its value is "read" or "write".
const capacityHeader = "X-Baton-Bench-Capacity"

// askCapacity adds "ReturnConsumedCapacity":"TOTAL" to the JSON body of a DynamoDB read or write (DynamoDB Local
// does not verify signatures, so the rewritten body is accepted), so that the response reports the units it
// consumed.
func askCapacity(r *http.Request, target string) error {
	service, op, _ := strings.Cut(target, ".")
	if !strings.HasPrefix(service, "DynamoDB") {
		return nil
	}
	kind := map[string]string{"PutItem": "write", "UpdateItem": "write", "DeleteItem": "write", "TransactWriteItems": "write",
		"BatchWriteItem": "write", "GetItem": "read", "Query": "read", "BatchGetItem": "read", "Scan": "read", "TransactGetItems": "read"}[op]
	if kind == "" {
		return nil
	}
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return err
	}
	m["ReturnConsumedCapacity"] = json.RawMessage(`"TOTAL"`)
	if body, err = json.Marshal(m); err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.Header.Set("Content-Length", strconv.Itoa(len(body)))
	r.Header.Set(capacityHeader, kind)
	return nil
}

// addCapacity adds the ConsumedCapacity of a DynamoDB response (one object, or a list for transactions and batches)
// to the counters "DynamoDB.<kind>.milliunits" (capacity units × 1000).
func (p *countingProxy) addCapacity(kind string, body []byte) {
	var resp struct {
		ConsumedCapacity json.RawMessage
	}
	if json.Unmarshal(body, &resp) != nil || len(resp.ConsumedCapacity) == 0 {
		return
	}
	type unit struct{ CapacityUnits float64 }
	var list []unit
	if resp.ConsumedCapacity[0] == '[' {
		_ = json.Unmarshal(resp.ConsumedCapacity, &list)
	} else {
		var one unit
		if json.Unmarshal(resp.ConsumedCapacity, &one) == nil {
			list = append(list, one)
		}
	}
	total := 0.0
	for _, u := range list {
		total += u.CapacityUnits
	}
	p.mu.Lock()
	p.counts["DynamoDB."+kind+".milliunits"] += int64(total*1000 + 0.5)
	p.mu.Unlock()
}

func (p *countingProxy) count(target string) {
	service, op, ok := strings.Cut(target, ".")
	if !ok {
		service, op = "unknown", target
	}
	switch {
	case strings.HasPrefix(service, "DynamoDB"):
		service = "DynamoDB"
	case service == "AWSStepFunctions":
		service = "SFN"
	}
	p.mu.Lock()
	p.counts[service+"."+op]++
	p.mu.Unlock()
}

// Snapshot returns a copy of the counters.
func (p *countingProxy) Snapshot() map[string]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int64, len(p.counts))
	for k, v := range p.counts {
		out[k] = v
	}
	return out
}

func (p *countingProxy) Close() {
	for _, srv := range p.servers {
		_ = srv.Close()
	}
}
