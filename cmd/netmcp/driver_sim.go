package main

// The simulated lab's driver: `netmcp serve --device sim://r1` serves a
// router of the built-in lab (or of --topology). Importing the lab's
// runtime registers it.
import _ "github.com/netmcp/netmcp/lab/serve"
