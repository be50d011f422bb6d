package netproto

// CapabilityKey is the key of the MCP-NET object inside the server
// capabilities of the initialize result (MCP-NET section 3).
const CapabilityKey = "network"

// ExtensionID is the identifier under which the same object is also
// advertised in capabilities.extensions, so that typed MCP clients
// (which drop unknown top-level capability keys) can still read it.
const ExtensionID = "ietf.org/mcp-net"

// NetworkCapability is the "network" object of MCP-NET section 3.
// Field names are exactly those of the draft.
type NetworkCapability struct {
	// YangModules lists the YANG modules the server can serve.
	YangModules []string `json:"yangModules"`
	// CLIDialect identifies the CLI syntax, e.g. "huawei-vrp", "cisco-iosxr".
	CLIDialect string `json:"cliDialect"`
	// ConfigDatastore lists the datastores: running, candidate, operational.
	ConfigDatastore []string `json:"configDatastore"`
	// NotificationStream lists the event streams the server turns into MCP notifications.
	NotificationStream []string `json:"notificationStream"`
	// MaxBulkEdit is the largest number of edits accepted in one request.
	MaxBulkEdit int `json:"maxBulkEdit"`
	// SupportsRollback tells whether confirmed commits roll back automatically.
	SupportsRollback bool `json:"supportsRollback"`
	// RollbackTimeout is the default confirmed-commit window in seconds.
	RollbackTimeout int `json:"rollbackTimeout"`
}
