// Package vrp is the simulator's Huawei VRP dialect ("huawei-vrp"): its
// display commands (with the IOS-style aliases the MCP-NET draft uses),
// its configuration parser, its current-configuration renderer and the
// wording of its log messages. It implements dialect.Dialect; lab/sim
// serves it to the devices whose topology names the dialect.
package vrp
