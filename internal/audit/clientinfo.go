package audit

import (
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/mcpclient"
)

// The client identity sent in initialize. A server that looks for an
// auditor's name in clientInfo sees the one a popular client sends,
// unless the user asks for another (--client-info NAME/VERSION).

func (o Options) clientName() string {
	name, _, _ := strings.Cut(o.ClientInfo, "/")
	if name == "" {
		return mcpclient.DefaultClientName
	}
	return name
}

func (o Options) clientVersion() string {
	name, version, ok := strings.Cut(o.ClientInfo, "/")
	if name == "" || !ok || version == "" {
		return mcpclient.DefaultClientVersion
	}
	return version
}
