// Package tlv encodes the LLDP organisationally specific TLV by which a
// netmcp collaboration agent advertises itself to its neighbours (the
// troubleshooting draft's section 5, step 1): its MCP port, a digest of
// the capabilities it offers to neighbours, and the SHA-256 thumbprint of
// its device certificate. The full capability list is fetched over MCP
// after TLS and checked against the digest.
//
// Wire form of the TLV's information string (after the OUI 00-00-5E and
// subtype 2), 51 bytes, far under LLDP's 507:
//
//	version   1 byte   = 1
//	port      2 bytes  big endian
//	caps      16 bytes first half of SHA-256 of the sorted capability names joined by "\n"
//	thumb     32 bytes SHA-256 of the certificate's DER
//
// In YANG (openconfig-lldp custom-tlvs value) and lldpd's configuration
// the string is written in hex, colon-separated as lldpd prints it.
package tlv

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// OUI and Subtype identify the TLV: IANA's OUI (00-00-5E), subtype 2
// (subtype 1 is the lab's plain "netmcp" marker).
const (
	OUI     = "00:00:5e"
	Subtype = 2
	// Version is the layout version of the information string.
	Version = 1
	// MaxValue is LLDP's limit on an organisational TLV's information string.
	MaxValue = 507
	// Size is the encoded length.
	Size = 1 + 2 + DigestSize + sha256.Size
	// DigestSize is the length of the capability digest.
	DigestSize = 16
)

// Advert is what an agent advertises.
type Advert struct {
	// Port is the agent's MCP port (9514 by default).
	Port uint16
	// CapDigest is CapabilityDigest of the neighbour-callable capabilities.
	CapDigest [DigestSize]byte
	// Thumbprint is the SHA-256 of the agent's certificate (DER).
	Thumbprint [sha256.Size]byte
}

// CapabilityDigest returns the digest of a capability set: the first 16
// bytes of SHA-256 of the sorted, de-duplicated names joined by "\n".
func CapabilityDigest(caps []string) [DigestSize]byte {
	c := slices.Clone(caps)
	slices.Sort(c)
	c = slices.Compact(c)
	sum := sha256.Sum256([]byte(strings.Join(c, "\n")))
	var d [DigestSize]byte
	copy(d[:], sum[:])
	return d
}

// Thumbprint returns the SHA-256 of a certificate's DER.
func Thumbprint(cert *x509.Certificate) [sha256.Size]byte { return sha256.Sum256(cert.Raw) }

// Encode returns the TLV's information string.
func (a Advert) Encode() []byte {
	b := make([]byte, 0, Size)
	b = append(b, Version)
	b = binary.BigEndian.AppendUint16(b, a.Port)
	b = append(b, a.CapDigest[:]...)
	return append(b, a.Thumbprint[:]...)
}

// Hex returns Encode in colon-separated lower-case hex ("01:25:2a:...").
func (a Advert) Hex() string { return colonHex(a.Encode()) }

// Decode parses an information string. Longer strings of the same version
// are accepted (later fields are ignored) so a newer agent can extend it.
func Decode(b []byte) (Advert, error) {
	var a Advert
	if len(b) > MaxValue {
		return a, fmt.Errorf("tlv: %d bytes, over LLDP's %d", len(b), MaxValue)
	}
	if len(b) < 1 {
		return a, errors.New("tlv: empty")
	}
	if b[0] != Version {
		return a, fmt.Errorf("tlv: version %d, want %d", b[0], Version)
	}
	if len(b) < Size {
		return a, fmt.Errorf("tlv: %d bytes, want at least %d", len(b), Size)
	}
	a.Port = binary.BigEndian.Uint16(b[1:3])
	if a.Port == 0 {
		return a, errors.New("tlv: port 0")
	}
	copy(a.CapDigest[:], b[3:3+DigestSize])
	copy(a.Thumbprint[:], b[3+DigestSize:Size])
	return a, nil
}

// DecodeHex parses the hex form, with or without colons, spaces or dashes.
func DecodeHex(s string) (Advert, error) {
	clean := strings.NewReplacer(":", "", " ", "", "-", "").Replace(strings.TrimSpace(s))
	b, err := hex.DecodeString(clean)
	if err != nil {
		return Advert{}, fmt.Errorf("tlv: not hex: %w", err)
	}
	return Decode(b)
}

// DecodeValue parses the information string as a YANG or lldpd value
// carries it: hex (colon-separated or not, lldpd's and netmcp's CLI form)
// or base64 (RFC 7951's encoding of a YANG binary, as openconfig-lldp's
// custom TLV value is typed). The form that decodes to a valid
// advertisement wins; a value that is neither is refused.
func DecodeValue(s string) (Advert, error) {
	a, herr := DecodeHex(s)
	if herr == nil {
		return a, nil
	}
	b, berr := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if berr != nil {
		return Advert{}, fmt.Errorf("tlv: value is neither hex (%v) nor base64 (%v)", herr, berr)
	}
	return Decode(b)
}

// MatchesCert reports whether the advertised thumbprint is cert's.
func (a Advert) MatchesCert(cert *x509.Certificate) bool {
	t := Thumbprint(cert)
	return bytes.Equal(t[:], a.Thumbprint[:])
}

func colonHex(b []byte) string {
	var sb strings.Builder
	for i, c := range b {
		if i > 0 {
			sb.WriteByte(':')
		}
		fmt.Fprintf(&sb, "%02x", c)
	}
	return sb.String()
}

// LLDPDConfig returns the lldpd configuration line that advertises a
// ("configure lldp custom-tlv oui 00,00,5e subtype 2 oui-info 01,25,2a,...").
func (a Advert) LLDPDConfig() string {
	return "configure lldp custom-tlv oui " + strings.ReplaceAll(OUI, ":", ",") + " subtype " + fmt.Sprint(Subtype) +
		" oui-info " + strings.ReplaceAll(a.Hex(), ":", ",")
}
