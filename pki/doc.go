// Package pki is netmcp's lab public-key infrastructure: a certificate
// authority (ECDSA P-256) that issues short-lived device (server) and client
// certificates, and the TLS 1.3 configurations built from them, with mutual
// TLS when the server is given a client CA.
//
// It is meant for labs and tests, where no enterprise PKI exists; keys are
// written with mode 0600.
package pki
