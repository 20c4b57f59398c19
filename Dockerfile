# The GitHub Action's container (action.yml: runs.using docker). It holds a
# static mcp-audit, node and npm (packages are installed here with
# --ignore-scripts, never run) and git (to compare with the PR's base). The
# audits themselves run in sandbox containers on the runner's Docker
# engine, reached through the socket GitHub mounts into container actions;
# files move through the Engine API, so no host paths are shared.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /mcp-audit ./cmd/mcp-audit

FROM node:22-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /mcp-audit /usr/local/bin/mcp-audit
ENTRYPOINT ["/usr/local/bin/mcp-audit", "action"]
