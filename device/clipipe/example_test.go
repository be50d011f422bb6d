package clipipe_test

import (
	"fmt"

	"github.com/netmcp/netmcp/device/clipipe"
)

func ExampleSplit() {
	cmd, f, err := clipipe.Split("show running-config | include ^hostname")
	if err != nil {
		panic(err)
	}
	fmt.Println(cmd)
	fmt.Print(f.Apply("hostname r1\ninterface Gi0\n"))
	// Output:
	// show running-config
	// hostname r1
}
