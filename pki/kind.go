package pki

import (
	"crypto/x509"
	"slices"
)

// KindOf returns the kind of an issued certificate, as Issue encodes it in
// the extended key usage: KindServer (a device) when it allows server
// authentication, KindClient (an operator or a controller) when it allows
// client authentication only. A certificate allowing neither (or any
// usage, without naming one) has no kind: ok is false.
func KindOf(c *x509.Certificate) (k Kind, ok bool) {
	switch {
	case c == nil:
		return "", false
	case slices.Contains(c.ExtKeyUsage, x509.ExtKeyUsageServerAuth):
		return KindServer, true
	case slices.Contains(c.ExtKeyUsage, x509.ExtKeyUsageClientAuth):
		return KindClient, true
	}
	return "", false
}

// IsDevice tells whether c is a device certificate (KindServer): only a
// device may sign device-to-device results and reports.
func IsDevice(c *x509.Certificate) bool {
	k, ok := KindOf(c)
	return ok && k == KindServer
}
