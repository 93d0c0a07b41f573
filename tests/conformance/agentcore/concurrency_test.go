package agentcore_test

import (
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	bac "github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol"
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentcorecontrol/types"
)

// TestConcurrentRequests: eight concurrent CreateHarness calls with one clientToken make one harness and all get
// its answer; eight concurrent updates with their own tokens each either make a version or get
// ConflictException, and the versions are gap-free with one per success.
func TestConcurrentRequests(t *testing.T) {
	t.Parallel()
	p := newProject(t, "concurrent")
	const n = 8
	in := &bac.CreateHarnessInput{HarnessName: aws.String("racer"), ExecutionRoleArn: aws.String(roleARN), ClientToken: aws.String("c0ffee00-8d3a-4e5f-9a7b-0c1d2e3f4a5b")}
	ids := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			out, err := p.client.CreateHarness(p.ctx, in)
			errs[i] = err
			if err == nil {
				ids[i] = aws.ToString(out.Harness.HarnessId)
			}
		}(i)
	}
	wg.Wait()
	for i := range ids {
		if errs[i] != nil || ids[i] != ids[0] {
			t.Fatalf("concurrent create %d: %q, %v; want %q", i, ids[i], errs[i], ids[0])
		}
	}
	list, err := p.client.ListHarnesses(p.ctx, &bac.ListHarnessesInput{})
	if err != nil || len(list.Harnesses) != 1 {
		t.Fatalf("harnesses after concurrent creates: %v %+v", err, list)
	}

	id := aws.String(ids[0])
	versions := make([]string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			out, err := p.client.UpdateHarness(p.ctx, &bac.UpdateHarnessInput{HarnessId: id, MaxIterations: aws.Int32(int32(i + 1))})
			var conflict *types.ConflictException
			switch {
			case err == nil:
				versions[i] = aws.ToString(out.Harness.HarnessVersion)
			case errors.As(err, &conflict):
			default:
				t.Errorf("concurrent update %d: %v", i, err)
			}
		}(i)
	}
	wg.Wait()
	seen := map[string]bool{}
	ok := 0
	for _, v := range versions {
		if v == "" {
			continue
		}
		if seen[v] {
			t.Fatalf("two updates answered version %s: %v", v, versions)
		}
		seen[v] = true
		ok++
	}
	vs, err := p.client.ListHarnessVersions(p.ctx, &bac.ListHarnessVersionsInput{HarnessId: id})
	if err != nil || len(vs.HarnessVersions) != ok+1 {
		t.Fatalf("%d updates succeeded but %d versions exist: %v", ok, len(vs.HarnessVersions), err)
	}
	for i, v := range vs.HarnessVersions {
		if aws.ToString(v.HarnessVersion) != strconv.Itoa(i+1) {
			t.Fatalf("versions are not gap-free: %+v", vs.HarnessVersions)
		}
	}
	if ok == 0 {
		t.Fatal("no concurrent update succeeded")
	}
}
