# Hookline: one command for the stack, one for the tests.
SHELL := /bin/bash
MODULES := ./pkg/... ./services/assets/... ./services/billing/... ./services/gateway/... ./e2e/...

.PHONY: up test deps build fuzz lint bench down

up: ## install what is missing, start dependencies and all services, seed a dev organization
	@scripts/up.sh

test: ## every unit and integration test against real Postgres, NATS and MinIO, with -race, plus short fuzz runs
	@scripts/test.sh

deps: ## start Postgres, NATS JetStream and MinIO only
	@scripts/deps.sh start >/dev/null

build: ## build the service binaries into bin/
	@mkdir -p bin && go build -o bin/ ./services/billing/cmd/billing ./services/assets/cmd/assets ./services/gateway/cmd/gateway

fuzz: ## longer fuzzing of the untrusted-input parsers (FUZZTIME=1m)
	@FUZZTIME=$${FUZZTIME:-1m} scripts/fuzz.sh

lint: ## gofmt and go vet
	@test -z "$$(gofmt -l pkg services)" || { gofmt -l pkg services; exit 1; }
	@go vet $(MODULES)

bench: ## benchmarks and load scripts; see bench/RESULTS.md
	@bench/run.sh

down: ## stop the dependencies started by make up / make test
	@scripts/deps.sh stop
