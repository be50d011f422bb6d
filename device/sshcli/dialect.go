package sshcli

import (
	"sort"
	"strconv"

	"github.com/scrapli/scrapligo/driver/network"
)

// Dialect names accepted in the URL's "dialect" query parameter.
const (
	DialectFRR   = "frr"
	DialectVRP   = "huawei-vrp"
	DialectXR    = "cisco-iosxr"
	DialectIOSXE = "cisco-iosxe"
	DialectJunos = "junos"
)

// Commit models of a dialect.
const (
	// commitNone: lines take effect as they are entered (FRR's vtysh,
	// IOS-XE); netmcp snapshots the running configuration before a change
	// and restores it on failure, rollback or an expired confirmed commit.
	commitNone = iota
	// commitDevice: the device keeps its own candidate and applies it with
	// "commit" (IOS-XR, VRP two-stage, Junos).
	commitDevice
)

// dialect describes how to drive one vendor CLI: its prompts (scrapligo
// privilege levels, with no shell level, so nothing ever escalates into a
// shell), the commands sent on login (paging off), the error markers of its
// output and its configuration model.
type dialect struct {
	name   string
	vendor string
	// privs are the prompt patterns: "exec" (where reads run) and
	// "configuration".
	privs       map[string]*network.PrivilegeLevel
	execPriv    string
	onOpen      []string // sent once after login, e.g. paging off
	failedWhen  []string // output markers of a refused command
	readVerbs   []string // first words a read (Exec) command may start with
	commitModel int
	// commit is the command that applies the device's candidate;
	// commitConfirmed formats a confirmed commit of n seconds ("" = none);
	// abort leaves configuration mode dropping uncommitted changes.
	commit          string
	commitConfirmed func(seconds int) string
	abort           []string
	// running is the command that prints the running configuration.
	running string
}

func privs(levels ...*network.PrivilegeLevel) map[string]*network.PrivilegeLevel {
	m := map[string]*network.PrivilegeLevel{}
	for _, l := range levels {
		m[l.Name] = l
	}
	return m
}

var dialects = map[string]*dialect{
	DialectFRR: {
		name: DialectFRR, vendor: "FRRouting",
		privs: privs(
			&network.PrivilegeLevel{Name: "exec", Pattern: `(?im)^[\w.\-]{1,63}#\s*$`},
			&network.PrivilegeLevel{Name: "configuration", Pattern: `(?im)^[\w.\-]{1,63}\(config[\w.\-/:]{0,40}\)#\s*$`,
				PreviousPriv: "exec", Deescalate: "end", Escalate: "configure terminal"},
		),
		execPriv:    "exec",
		onOpen:      []string{"terminal length 0"},
		failedWhen:  []string{"% Unknown command", "% Command incomplete", "% Ambiguous command", "% Invalid", "% Malformed", "% There is no", "% Only inactive", "% Configuration failed"},
		readVerbs:   []string{"show"},
		commitModel: commitNone,
		running:     "show running-config",
	},
	DialectIOSXE: {
		name: DialectIOSXE, vendor: "Cisco",
		privs: privs(
			&network.PrivilegeLevel{Name: "exec", Pattern: `(?im)^[\w.\-@/:]{1,63}#$`},
			&network.PrivilegeLevel{Name: "configuration", Pattern: `(?im)^[\w.\-@/:]{1,63}\([\w.\-@/:+]{0,32}\)#$`,
				PreviousPriv: "exec", Deescalate: "end", Escalate: "configure terminal"},
		),
		execPriv:    "exec",
		onOpen:      []string{"terminal width 512", "terminal length 0"},
		failedWhen:  []string{"% Ambiguous command", "% Incomplete command", "% Invalid input detected", "% Unknown command"},
		readVerbs:   []string{"show"},
		commitModel: commitNone,
		running:     "show running-config",
	},
	DialectXR: {
		name: DialectXR, vendor: "Cisco",
		privs: privs(
			&network.PrivilegeLevel{Name: "exec", Pattern: `(?im)^[\w.\-@/:]{1,63}#\s?$`},
			&network.PrivilegeLevel{Name: "configuration", Pattern: `(?im)^[\w.\-@/:]{1,63}\(config[\+\w.\-@/:]{0,32}\)#\s?$`,
				PreviousPriv: "exec", Deescalate: "end", Escalate: "configure terminal"},
		),
		execPriv:        "exec",
		onOpen:          []string{"terminal width 512", "terminal length 0"},
		failedWhen:      []string{"% Ambiguous command", "% Incomplete command", "% Invalid input detected", "% Unknown command", "% Failed to commit"},
		readVerbs:       []string{"show"},
		commitModel:     commitDevice,
		commit:          "commit",
		commitConfirmed: func(s int) string { return "commit confirmed " + strconv.Itoa(s) },
		abort:           []string{"abort"},
		running:         "show running-config",
	},
	DialectVRP: {
		name: DialectVRP, vendor: "Huawei",
		privs: privs(
			&network.PrivilegeLevel{Name: "exec", Pattern: `(?im)^<[\w.\-@/:]{1,63}>$`},
			&network.PrivilegeLevel{Name: "configuration", Pattern: `(?im)^\[~?\*?[\w.\-@/:]{1,63}(-[\w.\-@/:]+)?\]$`,
				PreviousPriv: "exec", Deescalate: "return", Escalate: "system-view"},
		),
		execPriv:    "exec",
		onOpen:      []string{"screen-length 0 temporary"},
		failedWhen:  []string{"Error: Unrecognized command", "Error: Wrong parameter", "Error:Ambiguous command", "Error:Too many parameters", "Error:Incomplete command", "Error: "},
		readVerbs:   []string{"display"},
		commitModel: commitDevice,
		commit:      "commit",
		abort:       []string{"clear configuration candidate", "return"},
		running:     "display current-configuration",
	},
	DialectJunos: {
		name: DialectJunos, vendor: "Juniper",
		privs: privs(
			&network.PrivilegeLevel{Name: "exec", Pattern: `(?im)^({\w+:\d}\n){0,1}[\w\-@()/:\.]{1,63}>\s?$`},
			&network.PrivilegeLevel{Name: "configuration", Pattern: `(?im)^({\w+:\d}\[edit\]\n){0,1}[\w\-@()/:\.]{1,63}#\s?$`,
				PreviousPriv: "exec", Deescalate: "exit configuration-mode", Escalate: "configure"},
		),
		execPriv:        "exec",
		onOpen:          []string{"set cli screen-width 511", "set cli screen-length 0", "set cli complete-on-space off"},
		failedWhen:      []string{"is ambiguous", "No valid completions", "unknown command", "syntax error", "error: "},
		readVerbs:       []string{"show"},
		commitModel:     commitDevice,
		commit:          "commit",
		commitConfirmed: func(s int) string { return "commit confirmed " + strconv.Itoa((s+59)/60) },
		abort:           []string{"rollback 0"},
		running:         "show configuration",
	},
}

// Dialects lists the dialect names the driver knows, sorted.
func Dialects() []string {
	out := make([]string, 0, len(dialects))
	for n := range dialects {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
