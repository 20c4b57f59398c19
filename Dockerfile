# The GitHub Action's container (action.yml: runs.using docker). It holds a
# static mcp-audit, node and npm (packages are installed here with
# --ignore-scripts, never run) and git (to compare with the PR's base). The
# audits themselves run in sandbox containers on the runner's Docker
# engine, reached through the socket GitHub mounts into container actions;
# files move through the Engine API, so no host paths are shared.
#
# Base images are pinned by the digest of their multi-platform index, as
# recorded by the official images' docker-library/repo-info
# (repos/golang/remote/1.26-bookworm.md: Go 1.26.7;
# repos/node/remote/22-bookworm-slim.md: Node 22.23.2). Dependabot proposes
# new digests. Both are build arguments so that `make action-e2e` builds
# this file offline from locally built bases (docs/action.md).
ARG GO_IMAGE=golang:1.26-bookworm@sha256:38f30937ff0751bd8c202e53556168b9093302ee6d591e7e65a9d1b84a9d360c
ARG NODE_IMAGE=node:22-bookworm-slim@sha256:48e4b67d85f87bd551df43704e24d252f56cc5f8e9718841aace50f19948f0f9

FROM ${GO_IMAGE} AS build
# go.mod's toolchain line may be newer than the image's Go: fetch it.
ENV GOTOOLCHAIN=auto
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# VERSION is the semantic version release builds stamp (mcp-audit --version).
ARG VERSION=
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false \
      -ldflags="-s -w -X github.com/mcp-audit/mcp-audit/internal/buildinfo.version=${VERSION}" \
      -o /mcp-audit ./cmd/mcp-audit

FROM ${NODE_IMAGE}
RUN command -v git >/dev/null \
 || { apt-get update \
   && apt-get install -y --no-install-recommends git ca-certificates \
   && rm -rf /var/lib/apt/lists/*; }
COPY --from=build /mcp-audit /usr/local/bin/mcp-audit
ENTRYPOINT ["/usr/local/bin/mcp-audit", "action"]
