package conformance_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
)

// TestSessionListFiltersByMetadata: `metadata[key]=value` (bracket syntax) keeps only Sessions whose metadata has
// every given pair; it combines with agent_id; a repeated filter key is 400.
func TestSessionListFiltersByMetadata(t *testing.T) {
	t.Parallel()
	st, client, ctx := stackClient(t)
	a := newAgent(t, ctx, client, "")
	create := func(md map[string]string) string {
		s, err := client.Beta.Agents.Sessions.New(ctx, openai.BetaAgentSessionNewParams{
			AgentID: openai.String(a.ID), Environment: noneEnvironment, Metadata: md})
		if err != nil {
			t.Fatalf("create session: %v", describe(err))
		}
		return s.ID
	}
	teamA := create(map[string]string{"team": "a"})
	create(map[string]string{"team": "b"})
	teamAx := create(map[string]string{"team": "a", "x": "1"})
	cases := []struct {
		name   string
		filter map[string]string
		want   []string
	}{
		{"one pair keeps every session that has it", map[string]string{"team": "a"}, []string{teamA, teamAx}},
		{"two pairs keep only sessions with both", map[string]string{"team": "a", "x": "1"}, []string{teamAx}},
		{"a value nobody has keeps none", map[string]string{"team": "c"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			md := c.filter
			var got []string
			iter := client.Beta.Agents.Sessions.ListAutoPaging(ctx, openai.BetaAgentSessionListParams{
				AgentID: openai.String(a.ID), Metadata: &md, Order: openai.BetaAgentSessionListParamsOrderAsc})
			for iter.Next() {
				got = append(got, iter.Current().ID)
			}
			if err := iter.Err(); err != nil {
				t.Fatalf("list: %v", describe(err))
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("sessions (-want +got):\n%s", diff)
			}
		})
	}
	r := st.Do(t, "GET", "/v1/agents/sessions?metadata[team]=a&metadata[team]=b", nil, nil)
	if r.Status != 400 || r.Error().Code == nil || *r.Error().Code != "invalid_request_error" {
		t.Errorf("repeated metadata key: %d %s, want 400 invalid_request_error", r.Status, r.Body)
	}
}
