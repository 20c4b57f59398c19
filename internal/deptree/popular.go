package deptree

// PopularNPM are the npm MCP servers and SDK packages a look-alike name is
// measured against: the 40 npm servers of study/servers.yml (the most
// installed MCP servers and a long tail; TestPopularCoversStudy keeps the
// two lists equal), the other reference servers of the
// @modelcontextprotocol scope, and the SDK and inspector that nearly
// every server tree holds.
var PopularNPM = []string{
	// study/servers.yml
	"@modelcontextprotocol/server-filesystem",
	"@modelcontextprotocol/server-memory",
	"@modelcontextprotocol/server-sequential-thinking",
	"@modelcontextprotocol/server-everything",
	"@modelcontextprotocol/server-github",
	"@modelcontextprotocol/server-puppeteer",
	"@modelcontextprotocol/server-brave-search",
	"@modelcontextprotocol/server-slack",
	"@modelcontextprotocol/server-postgres",
	"@playwright/mcp",
	"@upstash/context7-mcp",
	"firecrawl-mcp",
	"@notionhq/notion-mcp-server",
	"@supabase/mcp-server-supabase",
	"tavily-mcp",
	"exa-mcp-server",
	"chrome-devtools-mcp",
	"@wonderwhy-er/desktop-commander",
	"figma-developer-mcp",
	"mcp-remote",
	"okx-trade-mcp",
	"mcp-server-kubernetes",
	"@llmindset/mcp-hfspace",
	"@kazuph/mcp-fetch",
	"@mzxrai/mcp-webresearch",
	"mcp-server-sqlite-npx",
	"@bytebase/dbhub",
	"@translated/lara-mcp",
	"mcp-obsidian",
	"@f4ww4z/mcp-mysql-server",
	"mcp-server-code-runner",
	"@cyanheads/git-mcp-server",
	"@antv/mcp-server-chart",
	"@openbnb/mcp-server-airbnb",
	"duckduckgo-mcp-server",
	"@kimtaeyoon83/mcp-server-youtube-transcript",
	"@aashari/mcp-server-atlassian-jira",
	"@microsoft/clarity-mcp-server",
	"@pinecone-database/mcp",
	"@currents/mcp",
	// the other reference servers and the SDK
	"@modelcontextprotocol/server-gitlab",
	"@modelcontextprotocol/server-google-maps",
	"@modelcontextprotocol/server-gdrive",
	"@modelcontextprotocol/server-redis",
	"@modelcontextprotocol/server-everart",
	"@modelcontextprotocol/server-aws-kb-retrieval",
	"@modelcontextprotocol/sdk",
	"@modelcontextprotocol/inspector",
}

// PopularPyPI are the Python servers of study/python.yml, the other
// Python reference servers, and the SDKs.
var PopularPyPI = []string{
	"mcp-server-fetch", "mcp-server-time", "mcp-server-git", // study/python.yml
	"mcp-server-sqlite", "mcp-server-sentry", "mcp", "fastmcp",
}

// ServerBins are popular servers' commands, each with the package that
// provides it (the npm ones as the registry's metadata gave them when this
// list was written, the Python ones as the reference servers document
// them). A bin of another package with one of these names takes the
// command over once both are installed.
var ServerBins = map[string]string{
	"mcp-server-filesystem": "@modelcontextprotocol/server-filesystem",
	"playwright-mcp":        "@playwright/mcp",
	"context7-mcp":          "@upstash/context7-mcp",
	"notion-mcp-server":     "@notionhq/notion-mcp-server",
	"desktop-commander":     "@wonderwhy-er/desktop-commander",
	"mcp-remote":            "mcp-remote",
	"mcp-remote-client":     "mcp-remote",
	"mcp-server-fetch":      "mcp-server-fetch",
	"mcp-server-time":       "mcp-server-time",
	"mcp-server-git":        "mcp-server-git",
}

// Commands are well-known commands a package's bin must not take over,
// each with the packages that legitimately provide it (npm or PyPI
// names). npm links a dependency's bins into node_modules/.bin, which
// scripts find first on PATH; pip puts console scripts next to python.
var Commands = map[string][]string{
	"node": {"node"}, "npm": {"npm"}, "npx": {"npm"}, "corepack": {"corepack"},
	"pnpm": {"pnpm"}, "pnpx": {"pnpm"}, "yarn": {"yarn"}, "yarnpkg": {"yarn"},
	"bun": {"bun"}, "bunx": {"bun"}, "deno": {"deno"},
	"python": nil, "python3": nil, "pip": {"pip"}, "pip3": {"pip"}, "uv": {"uv"}, "uvx": {"uv"},
	"git": nil, "gh": nil, "docker": nil, "kubectl": nil, "ssh": nil, "scp": nil, "gpg": nil,
	"sh": nil, "bash": nil, "zsh": nil, "dash": nil, "fish": nil, "env": nil, "sudo": nil, "su": nil,
	"ls": nil, "cat": nil, "cp": nil, "mv": nil, "rm": nil, "chmod": nil, "chown": nil, "ps": nil,
	"kill": nil, "curl": nil, "wget": nil, "tar": nil, "grep": nil, "sed": nil, "awk": nil, "find": nil,
	"which": {"which"}, "make": nil, "gcc": nil, "cc": nil, "go": nil, "java": nil, "ruby": nil, "perl": nil,
	"aws": {"awscli"}, "gcloud": nil, "az": {"azure-cli"}, "open": nil, "xdg-open": nil, "code": nil,
	"claude": {"@anthropic-ai/claude-code"}, "codex": {"@openai/codex"}, "gemini": {"@google/gemini-cli"},
}
