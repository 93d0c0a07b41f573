package stack

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/baton-run/baton/local/stackproc"
)

// everything is the npm MCP test server of this test binary.
var everything struct {
	once sync.Once
	url  string
	err  error
}

// Everything returns the MCP endpoint ("http://127.0.0.1:<port>/mcp") of the npm MCP test server
// @modelcontextprotocol/server-everything in streamable HTTP mode (`PORT=<free> node …/dist/index.js
// streamableHttp`, from ModulesDir), started on first use once per test binary and killed with it. Without node or
// the package the test is skipped, or fails under CI=true.
func Everything(t testing.TB) string {
	t.Helper()
	everything.once.Do(func() { everything.url, everything.err = startEverything() })
	if everything.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("MCP server server-everything: %v — under CI=true a missing server fails the run", everything.err)
		}
		t.Skipf("MCP server server-everything unavailable: %v (run `make tools`)", everything.err)
	}
	return everything.url
}

func startEverything() (string, error) {
	root, err := stackproc.FindRoot()
	if err != nil {
		return "", err
	}
	entry := filepath.Join(stackproc.ModulesDir(root), "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(entry); err != nil {
		return "", err
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return "", err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	cmd := exec.Command(node, entry, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	go func() { _ = cmd.Wait() }()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			_ = c.Close()
			return "http://" + addr + "/mcp", nil
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			return "", fmt.Errorf("server-everything did not listen on %s within 30s", addr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
