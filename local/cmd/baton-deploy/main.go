// Command baton-deploy is `make deploy` and `make destroy` (package local/deploy, README "Deploy"):
//
//	baton-deploy [-env default] deploy|destroy
//
// It runs the AWS CLI, Docker and the SAM CLI, which must be on PATH; the region is AWS_REGION, else the AWS CLI's.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"

	"github.com/baton-run/baton/local/deploy"
	"github.com/baton-run/baton/local/stackproc"
)

// execRunner runs commands with the user's terminal as standard error.
type execRunner struct{}

func (execRunner) Run(ctx context.Context, stdin, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	err := cmd.Run()
	return out.String(), err
}

func main() {
	env := flag.String("env", "default", "SAM config environment of samconfig.toml ([<env>.deploy.parameters])")
	flag.Parse()
	root, err := stackproc.FindRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, tool := range []string{"aws", "sam", "docker"} {
		if _, err := exec.LookPath(tool); err != nil {
			fmt.Fprintf(os.Stderr, "baton-deploy: %s is not on PATH (the AWS CLI v2, the AWS SAM CLI and Docker are needed)\n", tool)
			os.Exit(1)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	o := deploy.Options{Root: root, Env: *env, Region: os.Getenv("AWS_REGION"), Arch: runtime.GOARCH, In: os.Stdin, Out: os.Stdout}
	switch flag.Arg(0) {
	case "deploy":
		err = deploy.Deploy(ctx, execRunner{}, o)
	case "destroy":
		err = deploy.Destroy(ctx, execRunner{}, o)
	default:
		err = fmt.Errorf("usage: baton-deploy [-env name] deploy|destroy")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
