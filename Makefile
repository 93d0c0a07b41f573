# Baton — `make help` lists the targets.
#
# Sections: Help · Tools · Build · sam build targets · Checks · Tests · Clean.
# Other sections (local, test, bench, demo) are added by their owners; keep one section per concern.

SHELL := /bin/bash
.DEFAULT_GOAL := help

GO       ?= go
NPM      ?= npm
CFN_LINT ?= cfn-lint

# npm test tools (DynamoDB Local jar, asl-validator, MCP test server); committed package.json + lockfile,
# git-ignored node_modules.
TOOLS_DIR    := tools
NODE_MODULES := $(TOOLS_DIR)/node_modules
ASL_VALIDATOR := $(NODE_MODULES)/.bin/asl-validator

BIN := bin

# Lambda functions: folder under functions/ → template.yaml logical ID.
FUNCTIONS := api stream park settle reconcile
# How every function is built for provided.al2023 on arm64 (as `sam build` runs it through build-<LogicalId>).
LAMBDA_BUILD := GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build -tags lambda.norpc -trimpath

# Native binaries of the local stack (built when their package exists).
RUNTIME_PKG  ?= ./runtimes/baton
LAUNCHER_PKG ?= ./local/cmd/baton-local

STATE_MACHINES := $(wildcard statemachines/*.asl.json)

##@ Help

.PHONY: help
help: ## Show this help
	@awk 'BEGIN {FS = ":.*## "} \
		/^##@/ {printf "\n\033[1m%s\033[0m\n", substr($$0, 5); next} \
		/^[a-zA-Z0-9_.-]+:.*## / {printf "  \033[36m%-24s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

##@ Tools

.PHONY: tools
tools: $(NODE_MODULES)/.installed ## Install the npm test tools into tools/node_modules (skipped when up to date)

# The stamp is newer than package.json and the lockfile once `npm ci` has installed exactly the lockfile.
$(NODE_MODULES)/.installed: $(TOOLS_DIR)/package.json $(TOOLS_DIR)/package-lock.json
	cd $(TOOLS_DIR) && $(NPM) ci --no-audit --no-fund
	@touch $@

# bubblewrap (`bwrap`) sandboxes the builtin tools' commands (docs/tools.md "Isolation"); their tests need it and
# fail without it. Installed from Debian's packages when missing and running as root (CI); otherwise say what to do.
.PHONY: bubblewrap
bubblewrap: ## Install bubblewrap (Debian package) when missing (as root; otherwise print how)
	@command -v bwrap >/dev/null 2>&1 || { \
		if [ "$$(id -u)" = 0 ]; then \
			apt-get install -y bubblewrap || (apt-get update && apt-get install -y bubblewrap); \
		else \
			echo "bubblewrap is missing and this is not root: run 'sudo apt-get install -y bubblewrap' (the builtin tool tests fail without it)"; \
		fi; }

# Chromium for the agentcore_browser tool's tests (docs/tools.md "Browser"): installed with apt when missing and
# running as root (CI); otherwise a message says what to install (the browser tests then skip, or fail under CI=true).
# DynamoDB Local listens on loopback only through a small launcher class compiled with the JDK's own compiler module
# (docs/operations.md); a Java runtime without it gets the JDK package when running as root (CI).
.PHONY: jdk
jdk: ## Make sure java has its compiler module (installs Debian's openjdk-17-jdk-headless as root when missing)
	@java -m jdk.compiler/com.sun.tools.javac.Main -version >/dev/null 2>&1 || { if [ "$$(id -u)" = 0 ]; then \
		DEBIAN_FRONTEND=noninteractive apt-get install -y openjdk-17-jdk-headless || \
		{ apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y openjdk-17-jdk-headless; }; \
	else echo "java has no jdk.compiler module: install a JDK 17 (e.g. 'sudo apt-get install -y openjdk-17-jdk-headless')"; fi; }

.PHONY: chromium
chromium: ## Install Debian's chromium when it is missing (root only; otherwise prints what to run)
	@[ -n "$$BATON_CHROMIUM_PATH" ] || command -v chromium >/dev/null || command -v chromium-browser >/dev/null || \
	command -v google-chrome >/dev/null || { if [ "$$(id -u)" = 0 ]; then \
		DEBIAN_FRONTEND=noninteractive apt-get install -y chromium || \
		{ apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; }; \
	else echo "chromium is not installed: run 'sudo apt-get install -y chromium' or set BATON_CHROMIUM_PATH"; fi; }

##@ Build

.PHONY: build
build: ## Build every function (linux/arm64 bootstrap) plus the runtime and the launcher into bin/
	@set -e; for f in $(FUNCTIONS); do \
		echo "build functions/$$f"; \
		$(LAMBDA_BUILD) -o $(BIN)/functions/$$f/bootstrap ./functions/$$f; \
	done
	@if [ -d "$(RUNTIME_PKG)" ]; then echo "build $(RUNTIME_PKG)"; $(GO) build -o $(BIN)/baton-runtime $(RUNTIME_PKG); fi
	@if [ -d "$(LAUNCHER_PKG)" ]; then echo "build $(LAUNCHER_PKG)"; $(GO) build -o $(BIN)/baton-local $(LAUNCHER_PKG); fi

##@ sam build targets (BuildMethod: makefile; sam runs `make build-<LogicalId>` at the root with ARTIFACTS_DIR set)

.PHONY: build-ApiFunction build-StreamFunction build-ParkFunction build-SettleFunction build-ReconcileFunction

build-ApiFunction: ## sam build: functions/api → $(ARTIFACTS_DIR)/bootstrap
	$(call lambda_bootstrap,./functions/api)

build-StreamFunction: ## sam build: functions/stream → $(ARTIFACTS_DIR)/bootstrap
	$(call lambda_bootstrap,./functions/stream)

build-ParkFunction: ## sam build: functions/park → $(ARTIFACTS_DIR)/bootstrap
	$(call lambda_bootstrap,./functions/park)

build-SettleFunction: ## sam build: functions/settle → $(ARTIFACTS_DIR)/bootstrap
	$(call lambda_bootstrap,./functions/settle)

build-ReconcileFunction: ## sam build: functions/reconcile → $(ARTIFACTS_DIR)/bootstrap
	$(call lambda_bootstrap,./functions/reconcile)

# lambda_bootstrap builds package $(1) into $(ARTIFACTS_DIR)/bootstrap.
define lambda_bootstrap
	@test -n "$(ARTIFACTS_DIR)" || { echo "ARTIFACTS_DIR is not set (sam build sets it)"; exit 2; }
	$(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap $(1)
endef

##@ Checks

.PHONY: lint
lint: tools ## go vet, cfn-lint on template.yaml, asl-validator on every statemachines/*.asl.json
	$(GO) vet ./...
	$(CFN_LINT) template.yaml
	@set -e; for def in $(STATE_MACHINES); do $(ASL_VALIDATOR) --json-path $$def; done

.PHONY: check-template
check-template: ## Build every function with its build-<LogicalId> target into a temporary ARTIFACTS_DIR, as sam build would
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	for id in $$(sed -n 's/^build-\([A-Za-z0-9]*Function\):.*/\1/p' $(firstword $(MAKEFILE_LIST))); do \
		mkdir -p "$$tmp/$$id"; \
		$(MAKE) --no-print-directory build-$$id ARTIFACTS_DIR="$$tmp/$$id"; \
		test -s "$$tmp/$$id/bootstrap" || { echo "build-$$id produced no bootstrap"; exit 1; }; \
		echo "ok build-$$id"; \
	done

##@ Local stack

.PHONY: local
.PHONY: deploy destroy
deploy: ## Deploy to AWS: image for this machine's architecture, admin key in Secrets Manager, sam build + deploy (first run asks; then samconfig.toml). SAM_ENV=prod for [prod]
	go run ./local/cmd/baton-deploy -env $(or $(SAM_ENV),default) deploy
destroy: ## Delete the deployed stack, its image repository and admin-key secret (SAM_ENV as for deploy)
	go run ./local/cmd/baton-deploy -env $(or $(SAM_ENV),default) destroy

local: tools jdk build-native ## Run Baton locally with its embedded defaults (API on 127.0.0.1:8080; Ctrl-C stops everything)
	$(BIN)/baton-local -modules $(NODE_MODULES) -runtime-bin $(BIN)/baton-runtime $(LOCAL_FLAGS)

.PHONY: demo
demo: tools build-native ## Run the inline-function scenario through both front doors (Agents API, AgentCore) against a fresh stack and print the transcripts
	BATON_NODE_MODULES=$(abspath $(NODE_MODULES)) $(GO) run ./local/cmd/baton-demo

.PHONY: build-native
build-native: ## Build the launcher and the baton runtime for this machine into bin/
	$(GO) build -o $(BIN)/baton-runtime $(RUNTIME_PKG)
	$(GO) build -o $(BIN)/baton-local $(LAUNCHER_PKG)

##@ Tests

# Everything CI runs. It installs and starts what the tests need and stops it afterwards; it prints its duration.
.PHONY: test
test: ## Run every check and test (template, ASL, builds, unit, integration, end-to-end); prints its duration
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory test-all; rc=$$?; \
	echo "make test: $$(( $$(date +%s) - start )) s (exit $$rc)"; exit $$rc

.PHONY: test-all
test-all: tools jdk bubblewrap chromium build-native lint check-template
	@# Warm the build cache for the runtime container test (the Dockerfile builds with CGO_ENABLED=0 -trimpath).
	CGO_ENABLED=0 $(GO) build -trimpath -o /dev/null $(RUNTIME_PKG)
	BATON_NODE_MODULES=$(abspath $(NODE_MODULES)) BATON_BIN_DIR=$(abspath $(BIN)) \
		$(GO) test -count=1 -timeout 25m ./... $(TEST_FLAGS)
	$(MAKE) --no-print-directory fuzz

.PHONY: test-unit
test-unit: bubblewrap ## Unit tests only (nothing running needed but bubblewrap, for the sandbox tests)
	$(GO) test -count=1 -short ./shared/... ./local/sfn/...

# An execution count, not a duration: Go 1.26's fuzz coordinator can fail a target that found nothing with
# "context deadline exceeded" when a duration runs out (go.dev/issue/75804, fixed in Go 1.27); a count has no deadline.
FUZZTIME ?= 10000x
.PHONY: fuzz
fuzz: ## Run every fuzz target briefly (FUZZTIME=10000x executions; longer by hand, e.g. FUZZTIME=1m)
	@set -e; for pkg in $$($(GO) list ./... ); do \
		dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
		for f in $$(grep -hoE '^func Fuzz[A-Za-z0-9_]+' $$dir/*_test.go 2>/dev/null | sed 's/^func //'); do \
			echo "fuzz $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$${f}\$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; \
	done

.PHONY: bench
bench: tools build-native ## Measure inline round trips (AWS requests, state transitions, USD cost, latency, a 200-session load phase; writes docs/bench/), then each function's size and cold init
	BATON_NODE_MODULES=$(abspath $(NODE_MODULES)) $(GO) run ./bench/turnbench -out docs/bench
	$(GO) run ./bench/funcbench

.PHONY: bench-functions
bench-functions: ## Each Lambda function's bootstrap size (linux/arm64), cold init time and linked packages (no stack needed)
	$(GO) run ./bench/funcbench

.PHONY: test-infra
test-infra: tools ## Tests of the template, DynamoDB Local, the Lambda host (needs java; CI=true fails instead of skipping)
	BATON_NODE_MODULES=$(abspath $(NODE_MODULES)) $(GO) test ./local/template/... ./local/ddblocal/... ./local/lambdahost/... ./tests/integration/template/...

##@ Clean

.PHONY: clean
clean: ## Remove build output (bin/, .aws-sam/)
	rm -rf $(BIN) .aws-sam
