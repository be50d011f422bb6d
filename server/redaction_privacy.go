package server

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// Privacy levels of resources (troubleshooting draft section 7.5).
const (
	// PrivacyOperational is operational state: interfaces, routes, CPU, memory.
	PrivacyOperational = 1
	// PrivacyConfig is configuration and logs: they may hold secrets
	// (masked for callers without the secrets scope) and user names.
	PrivacyConfig = 2
	// PrivacyCustomer is data that may hold anything, customer traffic and
	// memory contents included (crash dumps): it needs explicit consent.
	PrivacyCustomer = 3
)

// Meta keys of the privacy rules.
const (
	// MetaPrivacyLevel is set in the _meta of every resource, resource
	// template and resource content: 1, 2 or 3.
	MetaPrivacyLevel = "privacyLevel"
	// MetaPrivacyConsent, true in the _meta of a resources/read request,
	// says the user consented to reading level-3 data.
	MetaPrivacyConsent = "privacyConsent"
)

// ResourceClass is what the access-control layer knows of a resource URI
// or URI template.
type ResourceClass struct {
	// Kind names the resource: interfaces, interface, ipv4-route-table,
	// ipv6-route-table, cpu, memory, syslog, running-config, startup-config,
	// candidate-config, crashinfo, or "" for an unknown URI.
	Kind string
	// PrivacyLevel is 1, 2 or 3 (unknown URIs: 2).
	PrivacyLevel int
	// Path is the YANG subtree the resource is read from, checked with
	// policy ReadPath: "/" for whole configurations, "" when the resource
	// has no YANG path (telemetry, logs, crash records).
	Path string
}

// ClassifyResource classifies a resource URI or URI template of MCP-NET
// section 5.1. It never fails: an unknown or malformed URI is of level 2
// with no path, and reading it is left to the resource handler, which
// refuses it.
func ClassifyResource(uri string) ResourceClass {
	switch uri {
	case netproto.URIInterfaces:
		return ResourceClass{Kind: "interfaces", PrivacyLevel: PrivacyOperational, Path: pathInterfaces}
	case netproto.URIInterfaceTemplate:
		return ResourceClass{Kind: "interface", PrivacyLevel: PrivacyOperational, Path: pathInterfaces + "/interface"}
	case netproto.URIIPv4RouteTable:
		return ResourceClass{Kind: "ipv4-route-table", PrivacyLevel: PrivacyOperational, Path: pathRIBs}
	case netproto.URIIPv6RouteTable:
		return ResourceClass{Kind: "ipv6-route-table", PrivacyLevel: PrivacyOperational, Path: pathRIBs}
	case netproto.URICPU:
		return ResourceClass{Kind: "cpu", PrivacyLevel: PrivacyOperational}
	case netproto.URIMemory:
		return ResourceClass{Kind: "memory", PrivacyLevel: PrivacyOperational}
	case netproto.URISyslogTemplate:
		return ResourceClass{Kind: "syslog", PrivacyLevel: PrivacyConfig}
	case netproto.URIRunningConfig:
		return ResourceClass{Kind: "running-config", PrivacyLevel: PrivacyConfig, Path: "/"}
	case netproto.URIStartupConfig:
		return ResourceClass{Kind: "startup-config", PrivacyLevel: PrivacyConfig, Path: "/"}
	case netproto.URICandidateConfig:
		return ResourceClass{Kind: "candidate-config", PrivacyLevel: PrivacyConfig, Path: "/"}
	case netproto.URICrashinfoTemplate:
		return ResourceClass{Kind: "crashinfo", PrivacyLevel: PrivacyCustomer}
	}
	switch {
	case strings.HasPrefix(uri, netproto.URIInterfacePrefix):
		c := ResourceClass{Kind: "interface", PrivacyLevel: PrivacyOperational, Path: pathInterfaces + "/interface"}
		if name, err := url.PathUnescape(strings.TrimPrefix(uri, netproto.URIInterfacePrefix)); err == nil && validKeyValue(name) {
			p := fmt.Sprintf("%s/interface[name=%s]", pathInterfaces, quoteKey(name))
			if _, err := yang.ParsePath(p); err == nil {
				c.Path = p
			}
		}
		return c
	case strings.HasPrefix(uri, netproto.URISyslogPrefix):
		return ResourceClass{Kind: "syslog", PrivacyLevel: PrivacyConfig}
	case strings.HasPrefix(uri, URICommitPrefix):
		// A commit's diff shows configuration, as the running one does.
		return ResourceClass{Kind: "commit", PrivacyLevel: PrivacyConfig, Path: "/"}
	case strings.HasPrefix(uri, netproto.URIFilePrefix) && strings.HasSuffix(uri, netproto.URICrashinfoSuffix):
		return ResourceClass{Kind: "crashinfo", PrivacyLevel: PrivacyCustomer}
	}
	return ResourceClass{PrivacyLevel: PrivacyConfig}
}

// validKeyValue reports whether a list key value can be quoted in an
// XPath predicate (quoteKey): not empty, and not holding both quote kinds.
func validKeyValue(v string) bool {
	return v != "" && !(strings.Contains(v, "'") && strings.Contains(v, `"`))
}
