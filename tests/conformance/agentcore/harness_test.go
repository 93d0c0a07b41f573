package agentcore_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	bac "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol"
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/types"
	"github.com/google/go-cmp/cmp"

	"github.com/baton-run/baton/tests/stack"
)

// TestHarnessLifecycle drives every harness and endpoint operation through the official client: create with the
// guide's tool list, get, list, PATCH updates that each make a new version, reads of an old version, endpoints
// pinned to versions, DEFAULT following the latest, delete.
func TestHarnessLifecycle(t *testing.T) {
	t.Parallel()
	p := newProject(t, "lifecycle")
	c, ctx := p.client, p.ctx

	h := p.createHarness(t, "weather", "You answer weather questions.", seedTools())
	if aws.ToString(h.HarnessVersion) != "1" || h.Status != types.HarnessStatusReady {
		t.Fatalf("created harness version %q status %s; want 1 READY", aws.ToString(h.HarnessVersion), h.Status)
	}
	if !HarnessIDPattern(aws.ToString(h.HarnessId), "weather") || aws.ToString(h.Arn) != "arn:aws:bedrock-agentcore:us-east-1:000000000000:harness/"+aws.ToString(h.HarnessId) {
		t.Fatalf("harness id %q arn %q", aws.ToString(h.HarnessId), aws.ToString(h.Arn))
	}
	if diff := cmp.Diff([]string{"*"}, h.AllowedTools); diff != "" {
		t.Errorf("default allowedTools (-want +got):\n%s", diff)
	}
	if h.Truncation == nil || h.Truncation.Strategy != types.HarnessTruncationStrategySlidingWindow {
		t.Errorf("default truncation %+v", h.Truncation)
	}
	if _, ok := h.Environment.(*types.HarnessEnvironmentProviderMemberAgentCoreRuntimeEnvironment); !ok {
		t.Errorf("environment %T; want agentCoreRuntimeEnvironment", h.Environment)
	}
	if m, ok := h.Model.(*types.HarnessModelConfigurationMemberBedrockModelConfig); !ok || aws.ToString(m.Value.ModelId) == "" {
		t.Errorf("default model %#v; want a bedrockModelConfig", h.Model)
	}
	if h.CreatedAt == nil || h.UpdatedAt == nil || aws.ToString(h.ExecutionRoleArn) != roleARN || h.Skills == nil {
		t.Errorf("required members missing: %+v", h)
	}
	var names []string
	for _, tool := range h.Tools {
		names = append(names, string(tool.Type)+":"+aws.ToString(tool.Name))
	}
	want := []string{"remote_mcp:exa", "remote_mcp:my-private-mcp", "remote_mcp:exa-secure", "agentcore_gateway:my-gateway",
		"agentcore_gateway:my-oauth-gateway", "agentcore_browser:browser", "agentcore_code_interpreter:code_interpreter", "inline_function:approve_purchase"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if mcp, ok := h.Tools[2].Config.(*types.HarnessToolConfigurationMemberRemoteMcp); !ok ||
		mcp.Value.Headers["x-api-key"] != "${arn:aws:bedrock-agentcore:us-west-2:123456789012:token-vault/default/apikeycredentialprovider/my-exa-key}" {
		t.Errorf("the vault reference is not kept as given: %#v", h.Tools[2].Config)
	}
	id := h.HarnessId

	got, err := c.GetHarness(ctx, &bac.GetHarnessInput{HarnessId: id})
	if err != nil || aws.ToString(got.Harness.HarnessId) != aws.ToString(id) || len(got.Harness.Tools) != 8 {
		t.Fatalf("GetHarness: %v %+v", err, got)
	}

	list, err := c.ListHarnesses(ctx, &bac.ListHarnessesInput{})
	if err != nil || len(list.Harnesses) != 1 || aws.ToString(list.Harnesses[0].HarnessId) != aws.ToString(id) || aws.ToString(list.Harnesses[0].HarnessVersion) != "1" {
		t.Fatalf("ListHarnesses: %v %+v", err, list)
	}

	// PATCH: only systemPrompt changes; memory {} (no optionalValue) clears; tools stay.
	up, err := c.UpdateHarness(ctx, &bac.UpdateHarnessInput{HarnessId: id,
		SystemPrompt: []types.HarnessSystemContentBlock{&types.HarnessSystemContentBlockMemberText{Value: "Be brief."}},
		Memory:       &types.UpdatedHarnessMemoryConfiguration{}})
	if err != nil {
		t.Fatalf("UpdateHarness: %v", err)
	}
	if aws.ToString(up.Harness.HarnessVersion) != "2" || promptOf(up.Harness) != "Be brief." || len(up.Harness.Tools) != 8 {
		t.Fatalf("after update: version %s prompt %q tools %d", aws.ToString(up.Harness.HarnessVersion), promptOf(up.Harness), len(up.Harness.Tools))
	}
	up, err = c.UpdateHarness(ctx, &bac.UpdateHarnessInput{HarnessId: id, Tools: []types.HarnessTool{inlineTool("get_weather")},
		AllowedTools: []string{"get_weather", "@builtin"}, MaxIterations: aws.Int32(5)})
	if err != nil || aws.ToString(up.Harness.HarnessVersion) != "3" || len(up.Harness.Tools) != 1 || promptOf(up.Harness) != "Be brief." ||
		aws.ToInt32(up.Harness.MaxIterations) != 5 || !slices.Equal(up.Harness.AllowedTools, []string{"get_weather", "@builtin"}) {
		t.Fatalf("second update: %v %+v", err, up)
	}

	v1, err := c.GetHarness(ctx, &bac.GetHarnessInput{HarnessId: id, HarnessVersion: aws.String("1")})
	if err != nil || aws.ToString(v1.Harness.HarnessVersion) != "1" || promptOf(v1.Harness) != "You answer weather questions." || len(v1.Harness.Tools) != 8 {
		t.Fatalf("GetHarness version 1: %v %+v", err, v1)
	}
	_, err = c.GetHarness(ctx, &bac.GetHarnessInput{HarnessId: id, HarnessVersion: aws.String("9")})
	asError[*types.ResourceNotFoundException](t, "GetHarness of a version that does not exist", err)

	versions, err := c.ListHarnessVersions(ctx, &bac.ListHarnessVersionsInput{HarnessId: id})
	if err != nil {
		t.Fatalf("ListHarnessVersions: %v", err)
	}
	var vs []string
	for _, v := range versions.HarnessVersions {
		vs = append(vs, aws.ToString(v.HarnessVersion))
	}
	if diff := cmp.Diff([]string{"1", "2", "3"}, vs); diff != "" {
		t.Errorf("versions (-want +got):\n%s", diff)
	}
	page, err := c.ListHarnessVersions(ctx, &bac.ListHarnessVersionsInput{HarnessId: id, MaxResults: aws.Int32(2)})
	if err != nil || len(page.HarnessVersions) != 2 || page.NextToken == nil {
		t.Fatalf("first page of versions: %v %+v", err, page)
	}
	page, err = c.ListHarnessVersions(ctx, &bac.ListHarnessVersionsInput{HarnessId: id, MaxResults: aws.Int32(2), NextToken: page.NextToken})
	if err != nil || len(page.HarnessVersions) != 1 || aws.ToString(page.HarnessVersions[0].HarnessVersion) != "3" || page.NextToken != nil {
		t.Fatalf("second page of versions: %v %+v", err, page)
	}

	// Endpoints: pinned to a version, or the latest at creation; DEFAULT always follows the latest.
	prod, err := c.CreateHarnessEndpoint(ctx, &bac.CreateHarnessEndpointInput{HarnessId: id, EndpointName: aws.String("prod"), TargetVersion: aws.String("1"), Description: aws.String("pinned")})
	if err != nil || aws.ToString(prod.Endpoint.LiveVersion) != "1" || aws.ToString(prod.Endpoint.TargetVersion) != "1" || prod.Endpoint.Status != types.HarnessEndpointStatusReady {
		t.Fatalf("CreateHarnessEndpoint prod: %v %+v", err, prod)
	}
	cur, err := c.CreateHarnessEndpoint(ctx, &bac.CreateHarnessEndpointInput{HarnessId: id, EndpointName: aws.String("current")})
	if err != nil || aws.ToString(cur.Endpoint.TargetVersion) != "3" {
		t.Fatalf("CreateHarnessEndpoint current: %v %+v", err, cur)
	}
	_, err = c.CreateHarnessEndpoint(ctx, &bac.CreateHarnessEndpointInput{HarnessId: id, EndpointName: aws.String("prod")})
	asError[*types.ConflictException](t, "a second endpoint named prod", err)
	_, err = c.CreateHarnessEndpoint(ctx, &bac.CreateHarnessEndpointInput{HarnessId: id, EndpointName: aws.String("later"), TargetVersion: aws.String("4")})
	wantField(t, "an endpoint targeting a version that does not exist", err, "targetVersion")

	eps, err := c.ListHarnessEndpoints(ctx, &bac.ListHarnessEndpointsInput{HarnessId: id})
	if err != nil {
		t.Fatalf("ListHarnessEndpoints: %v", err)
	}
	var epv []string
	for _, e := range eps.Endpoints {
		epv = append(epv, aws.ToString(e.EndpointName)+"@"+aws.ToString(e.LiveVersion))
	}
	if diff := cmp.Diff([]string{"DEFAULT@3", "current@3", "prod@1"}, epv); diff != "" {
		t.Errorf("endpoints (-want +got):\n%s", diff)
	}
	def, err := c.GetHarnessEndpoint(ctx, &bac.GetHarnessEndpointInput{HarnessId: id, EndpointName: aws.String("DEFAULT")})
	if err != nil || aws.ToString(def.Endpoint.LiveVersion) != "3" {
		t.Fatalf("GetHarnessEndpoint DEFAULT: %v %+v", err, def)
	}
	_, err = c.UpdateHarnessEndpoint(ctx, &bac.UpdateHarnessEndpointInput{HarnessId: id, EndpointName: aws.String("DEFAULT"), TargetVersion: aws.String("1")})
	wantField(t, "retargeting DEFAULT", err, "endpointName")

	moved, err := c.UpdateHarnessEndpoint(ctx, &bac.UpdateHarnessEndpointInput{HarnessId: id, EndpointName: aws.String("prod"), TargetVersion: aws.String("2")})
	if err != nil || aws.ToString(moved.Endpoint.LiveVersion) != "2" || aws.ToString(moved.Endpoint.Description) != "pinned" {
		t.Fatalf("UpdateHarnessEndpoint prod → 2: %v %+v", err, moved)
	}
	got2, err := c.GetHarnessEndpoint(ctx, &bac.GetHarnessEndpointInput{HarnessId: id, EndpointName: aws.String("prod")})
	if err != nil || aws.ToString(got2.Endpoint.TargetVersion) != "2" || aws.ToString(got2.Endpoint.HarnessName) != "weather" {
		t.Fatalf("GetHarnessEndpoint prod: %v %+v", err, got2)
	}
	del, err := c.DeleteHarnessEndpoint(ctx, &bac.DeleteHarnessEndpointInput{HarnessId: id, EndpointName: aws.String("prod")})
	if err != nil || del.Endpoint.Status != types.HarnessEndpointStatusDeleting {
		t.Fatalf("DeleteHarnessEndpoint: %v %+v", err, del)
	}
	_, err = c.GetHarnessEndpoint(ctx, &bac.GetHarnessEndpointInput{HarnessId: id, EndpointName: aws.String("prod")})
	asError[*types.ResourceNotFoundException](t, "GetHarnessEndpoint after delete", err)

	gone, err := c.DeleteHarness(ctx, &bac.DeleteHarnessInput{HarnessId: id})
	if err != nil || gone.Harness == nil || gone.Harness.Status != types.HarnessStatusDeleting {
		t.Fatalf("DeleteHarness: %v %+v", err, gone)
	}
	_, err = c.GetHarness(ctx, &bac.GetHarnessInput{HarnessId: id})
	asError[*types.ResourceNotFoundException](t, "GetHarness after delete", err)
	_, err = c.ListHarnessVersions(ctx, &bac.ListHarnessVersionsInput{HarnessId: id})
	asError[*types.ResourceNotFoundException](t, "ListHarnessVersions after delete", err)
	_, err = c.GetHarnessEndpoint(ctx, &bac.GetHarnessEndpointInput{HarnessId: id, EndpointName: aws.String("current")})
	asError[*types.ResourceNotFoundException](t, "GetHarnessEndpoint after the harness is deleted", err)
	for k := range stack.Snapshot(t, p.st) {
		if strings.HasPrefix(k, "HARNESS#"+p.id+"#"+aws.ToString(id)+" ") || strings.HasPrefix(k, "HARNESSES#"+p.id+" ") || strings.HasPrefix(k, "HARNESSNAME#"+p.id+"#") {
			t.Errorf("item %s outlived the deleted harness", k)
		}
	}
	// The name is free again.
	again := p.createHarness(t, "weather", "again", nil)
	if aws.ToString(again.HarnessId) == aws.ToString(id) {
		t.Fatalf("a re-created harness reused id %s", aws.ToString(id))
	}
}

// HarnessIDPattern reports whether id is `<name>-<10 letters or digits>`.
func HarnessIDPattern(id, name string) bool {
	if len(id) != len(name)+11 || id[:len(name)+1] != name+"-" {
		return false
	}
	for _, c := range id[len(name)+1:] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// TestListHarnessesPages pages through the project's harnesses with the SDK paginator, one per page.
func TestListHarnessesPages(t *testing.T) {
	t.Parallel()
	p := newProject(t, "pages")
	want := map[string]bool{}
	for _, n := range []string{"a_one", "b_two", "c_three"} {
		want[aws.ToString(p.createHarness(t, n, "x", nil).HarnessId)] = true
	}
	pg := bac.NewListHarnessesPaginator(p.client, &bac.ListHarnessesInput{MaxResults: aws.Int32(1)})
	pages, seen := 0, map[string]bool{}
	for pg.HasMorePages() {
		out, err := pg.NextPage(p.ctx)
		if err != nil {
			t.Fatalf("page %d: %v", pages, err)
		}
		pages++
		for _, h := range out.Harnesses {
			seen[aws.ToString(h.HarnessId)] = true
		}
	}
	if diff := cmp.Diff(want, seen); diff != "" || pages != 3 {
		t.Fatalf("%d pages; harnesses (-want +got):\n%s", pages, diff)
	}
	_, err := p.client.ListHarnesses(p.ctx, &bac.ListHarnessesInput{NextToken: aws.String("not-a-token")})
	wantField(t, "a made-up nextToken", err, "nextToken")
}

// TestClientTokenIdempotency: the same clientToken and body give the stored answer; another body is
// ValidationException IdempotentParameterMismatchException and writes nothing.
func TestClientTokenIdempotency(t *testing.T) {
	t.Parallel()
	p := newProject(t, "idem")
	c, ctx := p.client, p.ctx
	token := "2f6e4b1c-8d3a-4e5f-9a7b-0c1d2e3f4a5b"
	in := &bac.CreateHarnessInput{HarnessName: aws.String("idem"), ExecutionRoleArn: aws.String(roleARN), ClientToken: aws.String(token)}
	first, err := c.CreateHarness(ctx, in)
	if err != nil {
		t.Fatalf("CreateHarness: %v", err)
	}
	second, err := c.CreateHarness(ctx, in)
	if err != nil || aws.ToString(second.Harness.HarnessId) != aws.ToString(first.Harness.HarnessId) || !second.Harness.CreatedAt.Equal(*first.Harness.CreatedAt) {
		t.Fatalf("retry with the same token: %v %+v", err, second)
	}
	other := *in
	other.MaxTokens = aws.Int32(100)
	_, err = c.CreateHarness(ctx, &other)
	ve := asError[*types.ValidationException](t, "same token, other body", err)
	if ve.Reason != types.ValidationExceptionReasonIdempotentParameterMismatchException {
		t.Fatalf("reason %q; want IdempotentParameterMismatchException", ve.Reason)
	}
	list, err := c.ListHarnesses(ctx, &bac.ListHarnessesInput{})
	if err != nil || len(list.Harnesses) != 1 {
		t.Fatalf("harnesses after the retries: %v %+v", err, list)
	}

	id := first.Harness.HarnessId
	upd := &bac.UpdateHarnessInput{HarnessId: id, ClientToken: aws.String("7a6e4b1c-8d3a-4e5f-9a7b-0c1d2e3f4a5b"), MaxIterations: aws.Int32(3)}
	u1, err := c.UpdateHarness(ctx, upd)
	if err != nil {
		t.Fatalf("UpdateHarness: %v", err)
	}
	u2, err := c.UpdateHarness(ctx, upd)
	if err != nil || aws.ToString(u1.Harness.HarnessVersion) != "2" || aws.ToString(u2.Harness.HarnessVersion) != "2" {
		t.Fatalf("update retried with the same token: %v; versions %s, %s", err, aws.ToString(u1.Harness.HarnessVersion), aws.ToString(u2.Harness.HarnessVersion))
	}
	upd2 := *upd
	upd2.MaxIterations = aws.Int32(4)
	_, err = c.UpdateHarness(ctx, &upd2)
	if ve := asError[*types.ValidationException](t, "update: same token, other body", err); ve.Reason != types.ValidationExceptionReasonIdempotentParameterMismatchException {
		t.Fatalf("reason %q", ve.Reason)
	}
	vs, err := c.ListHarnessVersions(ctx, &bac.ListHarnessVersionsInput{HarnessId: id})
	if err != nil || len(vs.HarnessVersions) != 2 {
		t.Fatalf("versions after retried updates: %v %+v", err, vs)
	}

	ep := &bac.CreateHarnessEndpointInput{HarnessId: id, EndpointName: aws.String("prod"), ClientToken: aws.String("9a6e4b1c-8d3a-4e5f-9a7b-0c1d2e3f4a5b")}
	if _, err := c.CreateHarnessEndpoint(ctx, ep); err != nil {
		t.Fatalf("CreateHarnessEndpoint: %v", err)
	}
	if _, err := c.CreateHarnessEndpoint(ctx, ep); err != nil {
		t.Fatalf("CreateHarnessEndpoint retried with the same token: %v", err)
	}

	delIn := &bac.DeleteHarnessInput{HarnessId: id, ClientToken: aws.String("5b6e4b1c-8d3a-4e5f-9a7b-0c1d2e3f4a5b")}
	d1, err := c.DeleteHarness(ctx, delIn)
	if err != nil {
		t.Fatalf("DeleteHarness: %v", err)
	}
	d2, err := c.DeleteHarness(ctx, delIn)
	if err != nil || d2.Harness.Status != types.HarnessStatusDeleting || aws.ToString(d2.Harness.HarnessId) != aws.ToString(d1.Harness.HarnessId) {
		t.Fatalf("DeleteHarness retried with the same token: %v %+v", err, d2)
	}
	_, err = c.DeleteHarness(ctx, &bac.DeleteHarnessInput{HarnessId: id})
	asError[*types.ResourceNotFoundException](t, "DeleteHarness with a new token after the delete", err)
}

// TestForeignHarnessIsNotFound: another project's harness answers ResourceNotFoundException with exactly the
// bytes of a harness that does not exist.
func TestForeignHarnessIsNotFound(t *testing.T) {
	t.Parallel()
	owner := newProject(t, "owner")
	other := newProject(t, "other")
	h := owner.createHarness(t, "private", "x", nil)
	id := aws.ToString(h.HarnessId)
	_, err := other.client.GetHarness(other.ctx, &bac.GetHarnessInput{HarnessId: h.HarnessId})
	asError[*types.ResourceNotFoundException](t, "GetHarness of another project's harness", err)
	_, err = other.client.UpdateHarness(other.ctx, &bac.UpdateHarnessInput{HarnessId: h.HarnessId, MaxIterations: aws.Int32(2)})
	asError[*types.ResourceNotFoundException](t, "UpdateHarness of another project's harness", err)
	_, err = other.client.DeleteHarness(other.ctx, &bac.DeleteHarnessInput{HarnessId: h.HarnessId})
	asError[*types.ResourceNotFoundException](t, "DeleteHarness of another project's harness", err)
	_, err = other.client.CreateHarnessEndpoint(other.ctx, &bac.CreateHarnessEndpointInput{HarnessId: h.HarnessId, EndpointName: aws.String("x")})
	asError[*types.ResourceNotFoundException](t, "CreateHarnessEndpoint on another project's harness", err)

	foreign := signedRequest(t, other.st, other.keyID, other.secret, http.MethodGet, "/harnesses/"+id, nil, time.Now(), nil)
	if _, err := owner.client.DeleteHarness(owner.ctx, &bac.DeleteHarnessInput{HarnessId: h.HarnessId}); err != nil {
		t.Fatalf("DeleteHarness by its owner: %v", err)
	}
	missing := signedRequest(t, owner.st, owner.keyID, owner.secret, http.MethodGet, "/harnesses/"+id, nil, time.Now(), nil)
	wantWireError(t, "foreign", foreign, http.StatusNotFound, "ResourceNotFoundException")
	if string(foreign.Body) != string(missing.Body) || foreign.Status != missing.Status {
		t.Fatalf("foreign %d %s differs from missing %d %s", foreign.Status, foreign.Body, missing.Status, missing.Body)
	}
	if h, err := owner.client.GetHarness(owner.ctx, &bac.GetHarnessInput{HarnessId: aws.String(id)}); err == nil {
		t.Fatalf("the deleted harness is still readable: %+v", h)
	}
}
