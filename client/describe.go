package client

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP methods a RemoteRequestFunc is given.
const (
	MethodReadResource = "resources/read"
	MethodListPrompts  = "prompts/list"
	MethodGetPrompt    = "prompts/get"
)

// Description is what a fleet learns of a device from its session: the
// initialize result (capabilities, capabilities.network among them) and
// the tool list. A controller replica holding a device's session gives it
// to the replicas that do not (Fleet.SetDescription), so that Network,
// Tools and HasTool answer there as on the holder.
type Description struct {
	// Initialize is the initialize result as the device sent it.
	Initialize json.RawMessage `json:"initialize"`
	// ToolsHash names the tool list: the hex SHA-256 of its JSON.
	ToolsHash string `json:"tools_hash"`
	// Tools is the tool list; it is left out when the asker already
	// knows ToolsHash (Fleet.KnownTools).
	Tools []*mcp.Tool `json:"tools,omitempty"`
}

// ErrNotDescribed is returned by Describe for a device without a session.
var ErrNotDescribed = errors.New("client: no session to describe the device from")

// Describe returns what the device's current session says of it. The
// tool list is left out when known(ToolsHash) is true (known may be nil).
func (d *Device) Describe(known func(hash string) bool) (Description, error) {
	d.mu.Lock()
	st, init, raw, tools := d.state, d.init, d.rawInit, d.tools
	d.mu.Unlock()
	if st != StateConnected || init == nil {
		return Description{}, fmt.Errorf("%w (%s)", ErrNotDescribed, st)
	}
	if len(raw) == 0 {
		b, err := json.Marshal(init)
		if err != nil {
			return Description{}, err
		}
		raw = b
	}
	hash, err := toolsHash(tools)
	if err != nil {
		return Description{}, err
	}
	desc := Description{Initialize: raw, ToolsHash: hash}
	if known == nil || !known(hash) {
		desc.Tools = tools
	}
	return desc, nil
}

func toolsHash(tools []*mcp.Tool) (string, error) {
	b, err := json.Marshal(tools)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// KnownTools tells whether the fleet holds the tool list named hash (a
// Description's ToolsHash): a describer may then leave the list out.
func (f *Fleet) KnownTools(hash string) bool {
	b, err := hex.DecodeString(hash)
	if err != nil || len(b) != sha256.Size {
		return false
	}
	f.toolsMu.Lock()
	defer f.toolsMu.Unlock()
	_, ok := f.tools[[sha256.Size]byte(b)]
	return ok
}

// SetDescription gives a released device what the replica holding its
// session says of it (Device.Describe there): from then on its Network,
// Tools, HasTool and InitializeResult answer from desc, until the fleet
// holds the device again and learns them from its own session. A device
// the fleet holds is left as it is.
func (f *Fleet) SetDescription(name string, desc Description) error {
	d := f.byName[name]
	if d == nil {
		return fmt.Errorf("client: no device %q in the fleet", name)
	}
	var init mcp.InitializeResult
	if err := json.Unmarshal(desc.Initialize, &init); err != nil {
		return fmt.Errorf("client: %s: initialize result: %w", name, err)
	}
	tools := desc.Tools
	if none, _ := toolsHash(nil); tools == nil && desc.ToolsHash != "" && desc.ToolsHash != none {
		b, err := hex.DecodeString(desc.ToolsHash)
		if err != nil || len(b) != sha256.Size {
			return fmt.Errorf("client: %s: tools hash %q: want hex SHA-256", name, desc.ToolsHash)
		}
		f.toolsMu.Lock()
		known, ok := f.tools[[sha256.Size]byte(b)]
		f.toolsMu.Unlock()
		if !ok {
			return fmt.Errorf("client: %s: tool list %.12s… not known here: describe it with its tools", name, desc.ToolsHash)
		}
		tools = known
	} else {
		tools = f.internTools(tools)
	}
	network := parseNetwork(desc.Initialize, &init)
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.released {
		return nil
	}
	d.init, d.rawInit, d.network, d.tools = &init, desc.Initialize, network, tools
	d.described = time.Now()
	return nil
}

// Described returns when the device was last given a description by
// SetDescription (zero: never, or it is held).
func (d *Device) Described() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.released {
		return time.Time{}
	}
	return d.described
}
