package modeltest

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/baton-run/baton/shared/harness"
	"github.com/baton-run/baton/shared/session"
)

// Collect streams req from m and returns every part up to the end of the stream (io.EOF), or the parts so far and
// the error of Stream or Next.
func Collect(t testing.TB, m harness.Model, req harness.Request) ([]harness.Part, error) {
	t.Helper()
	st, err := m.Stream(context.Background(), req)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	var parts []harness.Part
	for {
		p, err := st.Next()
		if errors.Is(err, io.EOF) {
			return parts, nil
		}
		if err != nil {
			return parts, err
		}
		parts = append(parts, p)
	}
}

// Limited returns req with an output limit of 9 tokens, temperature 0.25 and top_p 0.5: the values a provider's
// test expects on its wire.
func Limited(req harness.Request) harness.Request {
	temp, topP := 0.25, 0.5
	req.MaxOutputTokens, req.Temperature, req.TopP = 9, &temp, &topP
	return req
}

// StopMaxTokens is the stop part of a response cut at the requested output limit.
var StopMaxTokens = harness.Part{Kind: harness.PartStop, Stop: session.StopMaxTokens}
