package launcher

import (
	"context"
	"encoding/base64"
	"fmt"
	"github.com/baton-run/baton/local/stackproc"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/baton-run/baton/shared/admission"
	"github.com/baton-run/baton/shared/agentcore/translate"
	"github.com/baton-run/baton/shared/engine"
	"github.com/baton-run/baton/shared/httpapi"
	"github.com/baton-run/baton/shared/metrics"
	"github.com/baton-run/baton/shared/setup"
)

// Attach serves one more Agents API process against an already running stack (described by its state file):
// same table, same Step Functions endpoint, its own listener. Several API processes sharing one table is how the
// API scales on AWS, and how tests prove that no in-process lock is needed. It writes its own Stack (with its API
// URL) to stateFile when ready and blocks until ctx ends.
func Attach(ctx context.Context, baseStateFile, apiAddr, stateFile string, log *slog.Logger) error {
	if log == nil {
		log = slog.Default()
	}
	st, err := stackproc.ReadState(baseStateFile)
	if err != nil {
		return fmt.Errorf("read stack description: %w", err)
	}
	sealKey, err := base64.StdEncoding.DecodeString(setup.DefaultSealKey)
	if err != nil {
		return err
	}
	deps := setup.New(setup.Config{Table: st.Table, StateMachineARNs: st.StateMachineARNs,
		Endpoints: setup.Endpoints{DynamoDB: st.DynamoDBURL, SFN: st.SFNURL},
		SealKey:   sealKey, AgentCore: engine.AgentCoreIdentity{Region: region, AccountID: accountID}}, localAWS(), translate.Admission{Next: admission.Execution{}})
	ln, err := listen("the API", orDefault(apiAddr, "127.0.0.1:0"), "-api / BATON_API_ADDR")
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/", httpapi.New(deps.Engine, httpapi.Options{Logger: log, AdminKey: st.AdminKey, PollInterval: localStreamPoll, RuntimeSessions: deps.Store}))
	mux.Handle("GET /_baton/metrics", metrics.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go serve(log, "api", srv, ln)
	defer shutdown(srv)
	st.APIURL = "http://" + ln.Addr().String()
	st.BaseURL = st.APIURL + "/v1"
	st.PID = os.Getpid()
	st.RuntimePIDs = nil
	if stateFile != "" {
		if err := stackproc.WriteState(stateFile, st); err != nil {
			return err
		}
	}

	<-ctx.Done()
	return nil
}
