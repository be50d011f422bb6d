package xr

import (
	"time"

	"github.com/netmcp/netmcp/lab/sim/dialect"
)

// Name is the dialect's name.
const Name = "cisco-iosxr"

// Dialect is the cisco-iosxr dialect.
var Dialect dialect.Dialect = xr{}

type xr struct{}

func (xr) Name() string                { return Name }
func (xr) Commands() []dialect.Command { return commands }
func (xr) Parser() *dialect.Parser     { return parser }
func (xr) Syslog() dialect.Syslog      { return wording{} }
func (xr) Render(c dialect.Config, changed time.Time, by string) string {
	return render(c, changed, by)
}
