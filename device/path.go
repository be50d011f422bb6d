package device

import (
	"errors"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// ParsePath parses the YANG instance path of a Get for a driver: a syntax
// error comes back as the *netproto.Error the yang package made, or as a
// CodeYangSyntaxError naming the path.
func ParsePath(path string) (yang.Path, error) {
	p, err := yang.ParsePath(path)
	if err == nil {
		return p, nil
	}
	var ne *netproto.Error
	if errors.As(err, &ne) {
		return nil, ne
	}
	return nil, netproto.Errorf(netproto.CodeYangSyntaxError, "bad path %q: %v", path, err).WithPath(path)
}
