# mcp-audit developer commands. `make help` lists them.
GO       ?= go
# go.mod pins the toolchain (a patch release with the standard library's
# security fixes that govulncheck asks for); the module proxy serves it.
export GOTOOLCHAIN := auto
BIN      := bin/mcp-audit
PKGS     := ./...
# Build the sandbox image without a container registry when it is missing.
FLAVOR   ?= offline
export MCP_AUDIT_TEST_CACHE ?= $(CURDIR)/.cache/test-installs
# Parallel tests per package in the end-to-end tier: a sandbox run waits on
# its server's phases more than it computes, so on 2 cores 4 at a time
# took the audit package from 1610 s to 1042 s (both packages passing).
E2E_PARALLEL ?= 4
# The semantic version stamped into builds (mcp-audit --version).
VERSION  ?= $(shell ./scripts/version.sh)
LDFLAGS  := -X github.com/mcp-audit/mcp-audit/internal/buildinfo.version=$(VERSION)

.PHONY: help build test test-unit test-e2e demo bench study lint fuzz image engine clean action-e2e release-dry-run

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

build: ## build bin/mcp-audit (static: it is also the sandbox's network sink)
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/mcp-audit

engine: ## install and start Docker if needed
	./scripts/ensure-engine.sh

image: engine build ## build the sandbox image if missing
	@$(BIN) image status | grep -q current || $(BIN) image build --flavor $(FLAVOR)

test: export MCP_AUDIT_WITH_CHROMIUM = 1
test: image lint ## everything: engine, image, lint, then every test (Docker and Chromium required; the unit tier is make test-unit)
	MCP_AUDIT_REQUIRE_DOCKER=1 MCP_AUDIT_REQUIRE_CHROMIUM=1 $(GO) test -race -parallel $(E2E_PARALLEL) -timeout 60m $(PKGS)

action-e2e: image ## build the Action's image offline and run it as GitHub's runner does
	MCP_AUDIT_REQUIRE_DOCKER=1 $(GO) test -count=1 -timeout 30m -run 'TestActionContainerOnARunner' -v ./internal/action/

release-dry-run: ## build the release binaries and checksums into dist/ (no publishing)
	VERSION=$(VERSION) ./scripts/release-build.sh dist

test-unit: ## the unit tier: -short starts no container and opens no browser (minutes)
	$(GO) test -short $(PKGS)

test-e2e: export MCP_AUDIT_WITH_CHROMIUM = 1
test-e2e: image ## the end-to-end tier too: every test, Docker and Chromium required (no lint)
	MCP_AUDIT_REQUIRE_DOCKER=1 MCP_AUDIT_REQUIRE_CHROMIUM=1 $(GO) test -race -parallel $(E2E_PARALLEL) -timeout 60m $(PKGS)

demo: image ## audit the built-in default server and print the summary
	$(BIN) audit npm:@modelcontextprotocol/server-memory -o demo-manifest.json
	@echo "manifest written to demo-manifest.json"

bench: image ## measure tracing overhead and audit cost, ratios from one run
	MCP_AUDIT_SINK_BINARY=$(CURDIR)/$(BIN) $(GO) run ./cmd/mcp-audit-bench

study: image ## audit study/servers.yml into study/results (resumes; add JOBS=n)
	MCP_AUDIT_SINK_BINARY=$(CURDIR)/$(BIN) $(BIN) batch --list study/servers.yml --out study/results --timeout 5m $(if $(JOBS),--jobs $(JOBS))

# govulncheck reads a local database built from this pinned snapshot of
# golang.org/x/vulndb (fetched through the module proxy): bump it to see
# newer advisories.
VULNDB_VERSION := v0.0.0-20261105234957-e22db6528018
VULNDB         := .cache/vulndb/$(VULNDB_VERSION)

lint: $(VULNDB)/index/db.json ## gofmt, vet, mod tidy, staticcheck, govulncheck, size limits
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet $(PKGS)
	$(GO) mod tidy -diff
	$(GO) tool staticcheck $(PKGS)
	$(GO) tool govulncheck -db file://$(CURDIR)/$(VULNDB) $(PKGS)
	$(GO) run ./internal/tools/structcheck

$(VULNDB)/index/db.json:
	$(GO) run ./internal/tools/vulndb -version $(VULNDB_VERSION) -out $(VULNDB)

fuzz: ## fuzz the strace parser and the sink log reader, a minute each
	$(GO) test ./internal/trace -run '^$$' -fuzz FuzzParse -fuzztime 60s
	$(GO) test ./internal/sink -run '^$$' -fuzz FuzzRead -fuzztime 60s

clean: ## remove build outputs and leftover sandbox containers
	rm -rf bin dist .cache demo-manifest.json
	-$(GO) run ./cmd/mcp-audit cleanup
