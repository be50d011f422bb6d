package drivertest_test

import (
	"crypto/rand"
	"encoding/hex"
)

func randHex() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
