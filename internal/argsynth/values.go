package argsynth

// A kind is what a string parameter holds, and the values it gets: the
// first for the first parameter of that kind in a set, the next for the
// next, so every argument of one call carries its own value and a payload
// can be traced to the argument that carried it. Each value is what a
// user at a made-up logistics company would type; none names the tool,
// the auditor, or a reserved test domain (TestValuesLookReal).
type kind string

const (
	kText      kind = "text"
	kTitle     kind = "title"
	kQuery     kind = "query"
	kPrompt    kind = "prompt"
	kPerson    kind = "person"
	kLogin     kind = "login"
	kCompany   kind = "company"
	kEmail     kind = "email"
	kURL       kind = "url"
	kHost      kind = "host"
	kDir       kind = "dir"
	kNewDir    kind = "new-dir"
	kFile      kind = "file"
	kNewFile   kind = "new-file"
	kFileName  kind = "file-name"
	kID        kind = "id"
	kUUID      kind = "uuid"
	kSlug      kind = "slug"
	kRepo      kind = "repo"
	kBranch    kind = "branch"
	kLang      kind = "lang"
	kCountry   kind = "country"
	kCity      kind = "city"
	kLocation  kind = "location"
	kCurrency  kind = "currency"
	kPhone     kind = "phone"
	kColor     kind = "color"
	kDate      kind = "date"
	kDateTime  kind = "date-time"
	kTime      kind = "time"
	kVersion   kind = "version"
	kNamespace kind = "namespace"
	kSQL       kind = "sql"
	kJS        kind = "javascript"
	kJSFunc    kind = "javascript-function"
	kPython    kind = "python"
	kShell     kind = "shell"
	kSelector  kind = "selector"
	kYAML      kind = "yaml"
	kJSON      kind = "json"
	kSecret    kind = "secret"
	kKey       kind = "key"
	kMessage   kind = "message"
	kRegex     kind = "regex"
	kIPv4      kind = "ipv4"
	kIPv6      kind = "ipv6"
	kDuration  kind = "duration"
	kTable     kind = "table"
	kDatabase  kind = "database"
	kCommit    kind = "commit"
	kRepoPath  kind = "repo-path"
	kShellPath kind = "shell-path"
)

var values = map[kind][]string{
	kText:      {Text, "Shipment schedule for November", "Warehouse inventory notes", "Customer onboarding checklist", "Vendor contract renewal", "Fleet maintenance plan"},
	kTitle:     {Text, "Fleet status overview", "Route planning review", "Carrier performance summary"},
	kQuery:     {Query, "warehouse staffing plan", "carrier invoice dispute", "cold chain temperature log"},
	kPrompt:    {"Summarize the open shipping delays for October", "List the carriers with late deliveries this quarter"},
	kPerson:    {Person, "Daniel Okafor", "Priya Raman", "Tomas Herrera"},
	kLogin:     {Login, "dokafor", "praman", "therrera"},
	kCompany:   {Company, "Northgate Freight", "Harbor Point Shipping"},
	kEmail:     {Email, "daniel.okafor@brightwater-logistics.com", "priya.raman@brightwater-logistics.com", "tomas.herrera@brightwater-logistics.com"},
	kURL:       {URL, "https://www.brightwater-logistics.com/reports/fleet-status", "https://www.brightwater-logistics.com/blog/route-planning", "https://www.brightwater-logistics.com/careers"},
	kHost:      {Host, "intranet.brightwater-logistics.com", "api.brightwater-logistics.com"},
	kDir:       {Workspace, Workspace + "/notes", Workspace + "/docs"},
	kNewDir:    {Workspace + "/reports", Workspace + "/archive"},
	kFile:      {File, Workspace + "/notes/meeting-notes.md", Workspace + "/docs/overview.md"},
	kNewFile:   {Workspace + "/notes/q3-summary.md", Workspace + "/notes/route-review.md", Workspace + "/reports/fleet-status.md"},
	kFileName:  {"q3-summary.md", "route-review.md", "fleet-status.md"},
	kID:        {ID, "51877", "60342", "73915"},
	kUUID:      {"3f2b8c1e-7d4a-4e9b-9c2f-5a1d6e8b0c47", "8a41d2f6-0c3b-4f7e-a5d9-2e6b7c1f9a30", "c59e0b73-2f8d-4a16-b4c2-7d3e9f1a6b58"},
	kSlug:      {"fleet-dashboard", "route-planner", "carrier-portal", "invoice-sync"},
	kRepo:      {"fleet-dashboard", "route-planner", "carrier-portal"},
	kBranch:    {"main", "feature/route-planning", "fix/invoice-totals"},
	kLang:      {"en", "sv", "de"},
	kCountry:   {"SE", "DE", "US"},
	kCity:      {"Gothenburg", "Rotterdam", "Hamburg"},
	kLocation:  {"Gothenburg, Sweden", "Rotterdam, Netherlands", "Hamburg, Germany"},
	kCurrency:  {"USD", "EUR", "SEK"},
	kPhone:     {"+46 31 555 0142", "+46 31 555 0187"},
	kColor:     {"#1f6feb", "#2da44e", "#d29922"},
	kDate:      {"2026-01-15", "2026-02-01", "2026-03-01"},
	kDateTime:  {"2026-01-15T09:30:00Z", "2026-02-01T14:00:00Z", "2026-03-01T08:15:00Z"},
	kTime:      {"09:30:00Z", "14:00:00Z"},
	kVersion:   {"1.4.0", "2.0.1"},
	kNamespace: {"default", "logistics"},
	kSQL:       {"SELECT id, name, city FROM customers ORDER BY id LIMIT 10", "SELECT carrier, COUNT(*) FROM shipments GROUP BY carrier"},
	kJS:        {"console.log('Quarterly report ready')", "console.log('Fleet status checked')"},
	kJSFunc:    {"() => document.title", "() => document.querySelector('h1')?.textContent"},
	kPython:    {"print('Quarterly report ready')", "print('Fleet status checked')"},
	kShell:     {"ls -la", "git status"},
	kShellPath: {"/bin/bash", "/bin/sh"},
	kSelector:  {"#main", "h1", ".summary"},
	kYAML:      {yamlManifest},
	kJSON:      {`{"region":"north","limit":10}`, `{"status":"open"}`},
	kSecret:    {"Brightwater#2026", "Harbor#Point77"},
	kKey:       {"report_format", "default_region", "notify_on_delay"},
	kMessage:   {"Update the shipping delay report", "Add route planning notes", "Fix invoice totals"},
	kRegex:     {"^report-[0-9]+$", "delay|late"},
	kIPv4:      {"192.0.2.10", "192.0.2.24"},
	kIPv6:      {"2001:db8::10", "2001:db8::24"},
	kDuration:  {"PT15M", "PT1H"},
	kTable:     {"customers", "shipments", "invoices"},
	kDatabase:  {"logistics", "warehouse"},
	kCommit:    {"HEAD", "HEAD~1", "main"},
	kRepoPath:  {"README.md", "docs/overview.md", "src/index.js"},
}

// yamlManifest is what a Kubernetes user applies: a small deployment.
const yamlManifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: route-planner
  namespace: default
spec:
  replicas: 1
  selector:
    matchLabels:
      app: route-planner
  template:
    metadata:
      labels:
        app: route-planner
    spec:
      containers:
        - name: route-planner
          image: nginx:1.27
`

// A service is a site whose URLs a tool about it takes: a GitHub tool
// gets a GitHub URL, a video tool a YouTube watch URL.
type service struct {
	words []string
	urls  []string
}

var services = []service{
	{[]string{"youtube", "video", "youtu"}, []string{"https://www.youtube.com/watch?v=Qx3vF8tLm2E", "https://www.youtube.com/watch?v=Hb7nW2pRk4s"}},
	{[]string{"git clone", "clone", "git repository", "repository url", "remote url"}, []string{"https://github.com/brightwater-logistics/fleet-dashboard.git", "https://github.com/brightwater-logistics/route-planner.git"}},
	{[]string{"github"}, []string{"https://github.com/brightwater-logistics/fleet-dashboard", "https://github.com/brightwater-logistics/fleet-dashboard/issues/42", "https://github.com/brightwater-logistics/fleet-dashboard/pull/17"}},
	{[]string{"gitlab"}, []string{"https://gitlab.com/brightwater-logistics/fleet-dashboard", "https://gitlab.com/brightwater-logistics/fleet-dashboard/-/issues/42"}},
	{[]string{"figma"}, []string{"https://www.figma.com/design/Xk9Lm2Qp7RtV/Fleet-Dashboard", "https://www.figma.com/design/Xk9Lm2Qp7RtV/Fleet-Dashboard?node-id=12-34"}},
	{[]string{"notion"}, []string{"https://www.notion.so/brightwater/Q3-Shipping-Review-1a2b3c4d5e6f47a8b9c0d1e2f3a4b5c6"}},
	{[]string{"slack"}, []string{"https://brightwater.slack.com/archives/C04N2KQ7V1R"}},
	{[]string{"jira", "atlassian", "confluence"}, []string{"https://brightwater.atlassian.net/browse/OPS-142", "https://brightwater.atlassian.net/wiki/spaces/OPS/pages/48213"}},
	{[]string{"airbnb"}, []string{"https://www.airbnb.com/rooms/48213"}},
	{[]string{"linkedin"}, []string{"https://www.linkedin.com/company/brightwater-logistics"}},
	{[]string{"twitter", "tweet"}, []string{"https://x.com/brightwaterlog/status/1854213377001"}},
}
