// Package cluster lets several controller replicas share one fleet through
// NATS JetStream. It is opt-in: a controller that never calls Join needs no
// NATS and behaves as a single process.
//
// Ownership is a lease per device: one key per device in a JetStream
// key-value bucket, written with a per-message TTL and renewed by
// compare-and-set on the key's revision, so at most one replica holds a
// device. Each replica claims the devices that rendezvous hashing over the
// live replicas assigns it, hands back the ones it is no longer assigned
// (a new replica takes its share, a leaving one gives its devices back),
// and claims the devices of a dead replica once their leases expire.
// Sessions (the Sessions interface) is told when to open and close a
// device's session.
//
// A replica stops serving a device when it has not renewed that device's
// lease for half the lease TTL, measured from the moment it sent the last
// successful renewal; the server expires the lease no earlier than a full
// TTL after it stored that renewal. A replica cut from NATS therefore
// closes its sessions and refuses calls before any other replica can claim
// its devices, so no device has two owners.
//
// Call runs a tool on a device wherever it is owned: locally when this
// replica holds the lease, otherwise by NATS request/reply to the owner's
// subject, answered through the replica that was asked.
//
// Nonces and the policy digest are the shared state: a consent nonce is
// recorded with create-only semantics (used once across the cluster), and
// a replica refuses to join a cluster whose policy digest differs from its
// own.
package cluster
