package netproto

// URIScheme is the scheme of every MCP-NET resource (section 5).
const URIScheme = "network"

// Resource URIs and URI templates of MCP-NET section 5.1 and 5.3.
const (
	URIInterfaceTemplate = "network:///interface/{name}"
	URIInterfaces        = "network:///interfaces"
	URIIPv4RouteTable    = "network:///routing/ipv4/route-table"
	URIIPv6RouteTable    = "network:///routing/ipv6/route-table"
	URICPU               = "network:///system/cpu-utilization"
	URIMemory            = "network:///system/memory-summary"
	URISyslogTemplate    = "network:///log/syslog/last{count}"
	URIRunningConfig     = "network:///file/running-config"
	URIStartupConfig     = "network:///file/startup-config"
	URICandidateConfig   = "network:///file/candidate-config"
	URICrashinfoTemplate = "network:///file/{slot}/crashinfo"

	// URIInterfacePrefix and URISyslogPrefix are the fixed parts of the templates.
	URIInterfacePrefix = "network:///interface/"
	URISyslogPrefix    = "network:///log/syslog/last"
	URIFilePrefix      = "network:///file/"
	URICrashinfoSuffix = "/crashinfo"
)

// MaxSyslogLines is the largest {count} of network:///log/syslog/last{count}.
const MaxSyslogLines = 10000

// MIME types of MCP-NET section 5.1.
const (
	MIMEYangJSON = "application/yang-data+json"
	MIMEJSON     = "application/json"
	MIMETextUTF8 = "text/plain; charset=utf-8"
	MIMEText     = "text/plain"
	MIMEMarkdown = "text/markdown"
)

// Per-resource _meta keys of MCP-NET section 5.4.
const (
	MetaUnit         = "unit"
	MetaPrecision    = "precision"
	MetaHardwareSlot = "hardware-slot"
)
