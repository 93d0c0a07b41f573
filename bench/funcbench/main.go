// Command funcbench (`make bench`, `make bench-functions`) measures what each Lambda function costs before it
// serves anything, and prints one row per function:
//
//   - size: the bootstrap as `make build` and `sam build` build it (linux/arm64, CGO off, -tags lambda.norpc,
//     -trimpath), in MiB;
//   - init: cold init time, from exec of the bootstrap (built the same way for this machine's architecture) to its
//     first GET /2018-06-01/runtime/invocation/next on a Lambda Runtime API this program serves: process start, Go
//     runtime and package initialisation, setup.FromEnvironment (configuration, AWS SDK configuration, clients),
//     then the handler's first poll. The median, minimum and maximum of -runs cold starts, each a new process;
//   - packages: how many Baton packages the function links (go list -deps), and whether it links the harness or
//     admission (docs/configuration.md "What each function links").
//
// Initialisation makes no network call, so no local stack is needed: the functions get a complete configuration
// whose endpoints point at a closed port. The numbers are of this machine; compare them between commits, not with
// Lambda's own init duration.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/baton-run/baton/local/stackproc"
)

const module = "github.com/baton-run/baton"

// functions are the Lambda functions (folders under functions/), as the Makefile's FUNCTIONS lists them.
var functions = []string{"api", "stream", "park", "settle", "reconcile"}

func main() {
	runs := flag.Int("runs", 15, "cold starts per function")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	if err := run(ctx, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "funcbench:", err)
		os.Exit(1)
	}
}

// result is one function's row.
type result struct {
	name            string
	sizeBytes       int64
	inits           []time.Duration
	packages        int
	harness, admits bool
}

func run(ctx context.Context, runs int) error {
	root, err := stackproc.FindRoot()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "funcbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	api, err := startRuntimeAPI()
	if err != nil {
		return err
	}
	defer api.close()

	fmt.Printf("Building %d functions (linux/arm64 for size, linux/%s for init) and starting each %d times…\n", len(functions), runtime.GOARCH, runs)
	armDir, hostDir := filepath.Join(tmp, "arm64"), filepath.Join(tmp, runtime.GOARCH)
	if err := build(ctx, root, "arm64", armDir); err != nil {
		return err
	}
	if runtime.GOARCH == "arm64" {
		hostDir = armDir
	} else if err := build(ctx, root, runtime.GOARCH, hostDir); err != nil {
		return err
	}
	home := filepath.Join(tmp, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	var results []result
	for _, fn := range functions {
		r := result{name: fn}
		st, err := os.Stat(filepath.Join(armDir, fn))
		if err != nil {
			return err
		}
		r.sizeBytes = st.Size()
		host := filepath.Join(hostDir, fn)
		if r.packages, r.harness, r.admits, err = linked(ctx, root, fn); err != nil {
			return err
		}
		for range runs {
			d, err := api.coldStart(ctx, host, env(api.addr, home))
			if err != nil {
				return fmt.Errorf("%s: %w", fn, err)
			}
			r.inits = append(r.inits, d)
		}
		results = append(results, r)
	}

	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "function\tsize MiB (linux/arm64)\tinit p50 ms\tinit min ms\tinit max ms\tBaton pkgs\tharness\tadmission\t")
	for _, r := range results {
		slices.Sort(r.inits)
		fmt.Fprintf(w, "%s\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t%s\t%s\t\n", r.name, float64(r.sizeBytes)/(1<<20),
			ms(r.inits[len(r.inits)/2]), ms(r.inits[0]), ms(r.inits[len(r.inits)-1]), r.packages, yesNo(r.harness), yesNo(r.admits))
	}
	return w.Flush()
}

// build builds every function for linux/<arch> as the Makefile's LAMBDA_BUILD does, into dir/<function>.
func build(ctx context.Context, root, arch, dir string) error {
	args := []string{"build", "-tags", "lambda.norpc", "-trimpath", "-o", dir + string(filepath.Separator)}
	for _, fn := range functions {
		args = append(args, "./functions/"+fn)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+arch, "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build the functions for linux/%s: %v\n%s", arch, err, b)
	}
	return nil
}

// linked counts the Baton packages functions/<fn> links and reports whether the harness or admission is among
// them.
func linked(ctx context.Context, root, fn string) (n int, harness, admits bool, err error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-deps", "./functions/"+fn)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return 0, false, false, fmt.Errorf("go list -deps %s: %w", fn, err)
	}
	for _, p := range strings.Fields(string(out)) {
		if !strings.HasPrefix(p, module+"/") {
			continue
		}
		n++
		harness = harness || strings.HasPrefix(p, module+"/shared/harness")
		admits = admits || p == module+"/shared/admission"
	}
	return n, harness, admits, nil
}

// env is a complete deployed configuration (docs/configuration.md) for every function, with the AWS endpoints on
// a closed port (initialisation makes no request) and the Lambda Runtime API at apiAddr. HOME is an empty folder,
// so no shared AWS configuration file is read.
func env(apiAddr, home string) []string {
	return []string{
		"HOME=" + home,
		"AWS_LAMBDA_RUNTIME_API=" + apiAddr,
		"AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=bench", "AWS_SECRET_ACCESS_KEY=bench", "AWS_EC2_METADATA_DISABLED=true",
		"AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:9", "AWS_ENDPOINT_URL_SFN=http://127.0.0.1:9",
		"BATON_TABLE=baton-bench",
		"BATON_STATE_MACHINE_ARNS=baton=arn:aws:states:us-east-1:123456789012:stateMachine:baton-turn-baton",
		"BATON_ADMIN_KEY=funcbench-admin-key-0123456789abcdef", "BATON_AGENTCORE_ACCOUNT_ID=123456789012",
		"BATON_RUN_TIMEOUT_SECONDS=3600", "BATON_HEARTBEAT_SECONDS=60", "BATON_AWAIT_TIMEOUT_SECONDS=86400",
	}
}

// runtimeAPI is the part of the Lambda Runtime API a bootstrap calls first: GET …/runtime/invocation/next, which
// it holds open (no invocation arrives), reporting each poll on polled.
type runtimeAPI struct {
	addr   string
	srv    *http.Server
	polled chan struct{}
}

func startRuntimeAPI() (*runtimeAPI, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	a := &runtimeAPI{addr: ln.Addr().String(), polled: make(chan struct{}, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /2018-06-01/runtime/invocation/next", func(w http.ResponseWriter, r *http.Request) {
		select {
		case a.polled <- struct{}{}:
		default:
		}
		<-r.Context().Done()
	})
	a.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = a.srv.Serve(ln) }()
	return a, nil
}

func (a *runtimeAPI) close() { _ = a.srv.Close() }

// coldStart starts bin with env and returns the time until its first poll of the Runtime API; the process is
// killed afterwards. An exit before the poll (e.g. a configuration error) is an error with its output.
func (a *runtimeAPI) coldStart(ctx context.Context, bin string, env []string) (time.Duration, error) {
	select {
	case <-a.polled:
	default:
	}
	var out strings.Builder
	cmd := exec.Command(bin)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
		<-exited
	}()
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	select {
	case <-a.polled:
		return time.Since(start), nil
	case err := <-exited:
		exited <- err
		return 0, fmt.Errorf("exited before polling the Runtime API (%v):\n%s", err, out.String())
	case <-timeout.C:
		return 0, errors.New("no Runtime API poll within 30 s")
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
