package vrp

import (
	"time"

	"github.com/netmcp/netmcp/lab/sim/dialect"
)

// Name is the dialect's name.
const Name = "huawei-vrp"

// Dialect is the huawei-vrp dialect.
var Dialect dialect.Dialect = vrp{}

type vrp struct{}

func (vrp) Name() string                { return Name }
func (vrp) Commands() []dialect.Command { return commands }
func (vrp) Parser() *dialect.Parser     { return parser }
func (vrp) Syslog() dialect.Syslog      { return wording{} }
func (vrp) Render(c dialect.Config, changed time.Time, by string) string {
	return render(c, changed, by)
}
