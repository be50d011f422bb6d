package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ErrNonceUsed refuses a consent nonce already used on any replica.
var ErrNonceUsed = errors.New("cluster: consent nonce already used")

// UseNonce records a consent nonce as used until forget, cluster-wide, or
// refuses it if any replica recorded it before. The record is a create-only
// key in the replicated state bucket, kept with a per-key TTL until forget
// (rounded up to whole seconds), after which the consent could not be
// accepted anyway. An error other than ErrNonceUsed means the use could
// not be recorded, and the consent must be refused.
func (r *Replica) UseNonce(ctx context.Context, nonce string, forget time.Time) error {
	ttl := time.Until(forget)
	if ttl <= 0 {
		return fmt.Errorf("%w (expired)", ErrNonceUsed)
	}
	ttl = ttl.Truncate(time.Second) + time.Second
	sum := sha256.Sum256([]byte(nonce))
	key := "nonce." + hex.EncodeToString(sum[:])
	_, err := r.js.PublishMsg(ctx, &nats.Msg{Subject: kvSubject(r.state, key), Data: []byte(r.self)},
		jetstream.WithMsgTTL(ttl), jetstream.WithExpectLastSequencePerSubject(0))
	switch {
	case err == nil:
		return nil
	case isWrongSeq(err):
		return ErrNonceUsed
	default:
		return fmt.Errorf("cluster: record nonce: %w", err)
	}
}
