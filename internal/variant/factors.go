package variant

import (
	"encoding/hex"
	"fmt"
)

// Identity is what a run looks like from inside: its user, home, host
// name and machine id.
type Identity struct {
	User, Home, Hostname, MachineID string
}

// Canonical is the primary run's identity, the same in every audit, so
// published manifests compare across installations; the witness run
// differs from it (Witness), so a server dormant under it shows.
var Canonical = Identity{User: "dev", Home: "/home/dev", Hostname: "dev-workstation", MachineID: "6f2b1c9e4d7a4e0b9c3f5a1d2e8b7c60"}

var (
	users = []string{"alex", "sam", "jordan", "maria", "chen", "priya", "lukas", "emma", "omar", "nina", "tomas", "yuki"}
	hosts = []string{"%s-laptop", "%s-mbp", "%s-thinkpad", "%s-desktop", "ws-%s", "%s-dev"}
)

// Witness is the witness run's identity for the package version seed:
// another user, home, host name and machine id, unpredictable to the
// package.
func (s Secret) Witness(seed string) Identity {
	u := users[s.Pick(len(users), seed, "user")]
	return Identity{User: u, Home: "/home/" + u, Hostname: fmt.Sprintf(hosts[s.Pick(len(hosts), seed, "host")], u),
		MachineID: hex.EncodeToString(s.mac(seed, "machine-id")[:16])}
}

// Client is a client as a server meets it: the clientInfo it sends and
// the environment its stdio transport passes on (the MCP SDKs pass HOME,
// LOGNAME, PATH, SHELL, TERM and USER).
type Client struct {
	Name, Version string
	// Profile names the environment: desktop (no terminal), terminal (a
	// CLI run from a shell) or editor (an IDE's inherited environment).
	Profile string
}

// Clients are popular clients' identities.
var Clients = []Client{
	{"claude-ai", "0.1.0", "desktop"},
	{"claude-code", "2.1.3", "terminal"},
	{"cursor-vscode", "1.0.0", "editor"},
	{"Visual Studio Code", "1.106.0", "editor"},
	{"gemini-cli-mcp-client", "0.18.0", "terminal"},
	{"Zed", "0.212.4", "editor"},
}

// WitnessClient is another client than primary for the witness run: of
// another name and environment profile.
func (s Secret) WitnessClient(seed string, primary Client) Client {
	var others []Client
	for _, c := range Clients {
		if c.Profile != primary.Profile && c.Name != primary.Name {
			others = append(others, c)
		}
	}
	return others[s.Pick(len(others), seed, "client")]
}

// AnswerNets are the ranges a sinkhole can answer from besides its own
// (every address is routed to the sink inside the sandbox's namespace, so
// none is ever reached): a server that tells the audit by the answers'
// range meets another one in the witness run.
var AnswerNets = []string{"100.72.0.0/15", "172.24.0.0/15", "10.182.0.0/15", "100.118.0.0/15"}

// WitnessAnswerNet is the witness run's answer range.
func (s Secret) WitnessAnswerNet(seed string) string {
	return AnswerNets[s.Pick(len(AnswerNets), seed, "answer-net")]
}

// YearsAhead is how far the idle phase moves the clock: a release that
// turns hostile at a date meets one.
func (s Secret) YearsAhead(seed string) int { return 2 + s.Pick(4, seed, "years") }

// RandomSeed seeds the traced runs' Math.random (node --random-seed), so
// the runs that share their secrets differ in as little as possible.
func (s Secret) RandomSeed(seed string) int { return 1 + s.Pick(1<<30, seed, "random") }

// ClockShifts are how far ahead of real time the traced runs' clocks
// start (seconds): one for the primary and secrets runs, another for the
// calibration run. Both are the same 1 to 14 days, hours and minutes, and
// 40 to 55 seconds apart (more than two runs' calls drift apart, so that
// they never reach the same second by drifting), so a field that follows the time to the second
// (a signed request's date and its signature, a log time, epoch seconds)
// differs between the two runs with the same secrets, and is the noise it
// is, rather than agreeing when those runs happen to reach it in the same
// second while the secrets run reaches it in the next (@translated/lara-mcp
// signs every request over an x-lara-date header). A key coarser than the
// second (the hour, the day) stays the same in both but for a boundary
// between them, so a secret masked with it still follows the secrets.
// Both shifts are days from real time and from one distribution, assigned
// at random, so no run can tell from its own clock which one it is.
func (s Secret) ClockShifts(seed string) (primary, calibration int) {
	common := 86400*(1+s.Pick(14, seed, "shift-days")) + 3600*s.Pick(24, seed, "shift-hours") + 60*s.Pick(60, seed, "shift-minutes")
	s1 := s.Pick(4, seed, "shift-seconds")
	s2 := s1 + 40 + s.Pick(16, seed, "shift-apart")
	a, b := common+s1, common+s2
	if s.Pick(2, seed, "shift-order") == 1 {
		a, b = b, a
	}
	return a, b
}
