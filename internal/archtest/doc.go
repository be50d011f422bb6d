// Package archtest holds the tests that check the repository's shape rather
// than its behaviour: which package may import which (layering_test.go). It
// has no code of its own; `go test ./...` runs its tests with the rest.
package archtest
