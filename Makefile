# Hookline: one command for the stack, one for the tests.
SHELL := /bin/bash
MODULES := ./pkg/... ./sdk/go/... ./services/assets/... ./services/billing/... ./services/clips/... ./services/gateway/... ./services/thumbnails/... ./services/webhooks/... ./e2e/...
# Every module of go.work, as directories: golangci-lint runs inside each.
LINT_DIRS := pkg sdk/go services/assets services/billing services/clips services/gateway services/thumbnails services/webhooks e2e bench

.PHONY: up up-test tour test test-unit test-clients test-containers deps build fuzz lint chart bench down

up: ## install what is missing, start dependencies and all services, seed a dev organization
	@scripts/up.sh

tour: ## run the README's tour (curl and the CLI: thumbnail, clip project, render, download) against the running make up
	@scripts/tour-test.sh

up-test: ## make up in a fresh clone while 4222, 8080 and 9000 are taken, then a request to the seeded organization through the printed URL
	@scripts/up-test.sh

test: ## every check, unit and integration test (-race, real Postgres, NATS and MinIO), short fuzz runs, the up-test and the clients, as concurrent lanes (scripts/test.sh)
	@scripts/test.sh

test-clients: ## the API through oapi-codegen, ogen, @hey-api/openapi-ts, openapi-typescript, the MCP TypeScript SDK and inspector, and standardwebhooks, against a running stack
	@scripts/test-clients.sh

test-unit: ## every test that needs no Postgres, NATS or MinIO (the rest skip, saying why), in a few minutes
	@scripts/test-unit.sh

test-containers: ## every test of every go.work module with its dependencies in containers (needs a Docker engine; testcontainers-go finds it)
	@env -u HOOKLINE_TEST_DATABASE_URL -u HOOKLINE_TEST_NATS_URL -u HOOKLINE_TEST_S3_ENDPOINT go test -tags testcontainers -count=1 -timeout 30m work

deps: ## start Postgres, NATS JetStream and MinIO only
	@scripts/deps.sh start >/dev/null

build: ## build the service binaries into bin/
	@mkdir -p bin && go build -o bin/ ./services/billing/cmd/billing ./services/assets/cmd/assets ./services/gateway/cmd/gateway ./services/thumbnails/cmd/thumbnails ./services/clips/cmd/clips ./services/webhooks/cmd/webhooks

fuzz: ## longer fuzzing of the untrusted-input parsers (FUZZTIME=1m)
	@FUZZTIME=$${FUZZTIME:-1m} scripts/fuzz.sh

lint: ## gofmt, the package map, § references, the free-port check, go vet, then golangci-lint (.golangci.yml) in every module
	@test -z "$$(gofmt -l $(LINT_DIRS))" || { gofmt -l $(LINT_DIRS); exit 1; }
	@scripts/package-map.sh
	@scripts/arch-refs.sh
	@scripts/port-check.sh
	@go vet $(MODULES) ./bench/...
	@scripts/chart-check.sh
	@scripts/deps.sh lint-tools
	@eval "$$(scripts/deps.sh env)"; rc=0; for m in $(LINT_DIRS); do \
	  echo "golangci-lint: $$m"; (cd $$m && "$$HOOKLINE_BIN/golangci-lint" run --allow-parallel-runners ./...) || rc=1; \
	done; exit $$rc

chart: ## Helm chart: helm lint, helm template validated offline against the Kubernetes 1.30 and CRD schemas, the same Deployments as deploy/k8s
	@scripts/chart-check.sh

bench: ## benchmarks and load scripts; see bench/RESULTS.md
	@bench/run.sh

down: ## stop the dependencies started by make up / make test
	@scripts/deps.sh stop
