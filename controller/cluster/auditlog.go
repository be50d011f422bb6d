package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	netaudit "github.com/netmcp/netmcp/audit"
)

// auditAppendTimeout bounds one record's append to the shared chain,
// retries included.
const auditAppendTimeout = 10 * time.Second

// AuditLog is the controller cluster's audit chain: the audit records of
// every replica, in one JetStream stream, one record a message, hash-
// chained as an audit log file is (netaudit.Seal, audit.VerifyReader). A
// record's seq is its message's stream sequence. A replica appends by
// sealing its record on the last one it knows and publishing it with
// that record's sequence as the stream's expected last sequence; when
// another replica appended first the publish is refused, and it reads the
// new last record and seals again. So concurrent appends keep one chain.
//
// Export makes it an audit.Sink: the records a replica writes to its own
// log are appended here too, each sealed again in the shared chain.
type AuditLog struct {
	js      jetstream.JetStream
	stream  string
	subject string

	mu   sync.Mutex
	seq  uint64 // the last record known: its seq (0: none known yet)
	hash string
	// known says seq and hash were read or written (0, Genesis is an
	// empty stream).
	known bool
}

// auditNames are the stream and subject of the audit chain of prefix.
func auditNames(prefix string) (stream, subject string) {
	return prefix + "-audit", prefix + ".audit"
}

// Audit opens the cluster's audit chain, creating its stream (file
// storage, replicated as the buckets) if it is missing.
func (r *Replica) Audit(ctx context.Context) (*AuditLog, error) {
	stream, subject := auditNames(r.cfg.Prefix)
	_, err := r.js.CreateStream(ctx, jetstream.StreamConfig{
		Name:      stream,
		Subjects:  []string{subject},
		Storage:   jetstream.FileStorage,
		Replicas:  r.cfg.StreamReplicas,
		Retention: jetstream.LimitsPolicy,
		// The chain is the record of who did what: nothing is removed
		// from it or rewritten.
		DenyDelete: true,
		DenyPurge:  true,
	})
	if err != nil && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		return nil, fmt.Errorf("cluster: audit stream %s: %w", stream, err)
	}
	return &AuditLog{js: r.js, stream: stream, subject: subject}, nil
}

// Append seals rec after the chain's last record and appends it, retrying
// on the last record another replica appended meanwhile. It returns the
// record as the chain holds it.
func (a *AuditLog) Append(ctx context.Context, rec netaudit.Record) (netaudit.Record, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for attempt := 0; ; attempt++ {
		if !a.known {
			if err := a.readLast(ctx); err != nil {
				return rec, err
			}
		}
		r := rec
		r.Seq, r.Prev, r.Hash = 0, "", ""
		line, err := netaudit.Seal(&r, a.seq, a.hash)
		if err != nil {
			return rec, err
		}
		_, err = a.js.PublishMsg(ctx, &nats.Msg{Subject: a.subject, Data: line}, jetstream.WithExpectLastSequence(a.seq))
		switch {
		case err == nil:
			a.seq, a.hash = r.Seq, r.Hash
			return r, nil
		case isWrongSeq(err) && ctx.Err() == nil:
			a.known = false // another replica appended: read its record
		default:
			return rec, fmt.Errorf("cluster: audit record not appended (attempt %d): %w", attempt+1, err)
		}
	}
}

// Export appends r to the chain (audit.Sink).
func (a *AuditLog) Export(r netaudit.Record) error {
	ctx, cancel := context.WithTimeout(context.Background(), auditAppendTimeout)
	defer cancel()
	_, err := a.Append(ctx, r)
	return err
}

// readLast reads the chain's last record. a.mu is held.
func (a *AuditLog) readLast(ctx context.Context) error {
	s, err := a.js.Stream(ctx, a.stream)
	if err != nil {
		return fmt.Errorf("cluster: audit stream: %w", err)
	}
	m, err := s.GetLastMsgForSubject(ctx, a.subject)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		a.seq, a.hash, a.known = 0, netaudit.Genesis, true
		return nil
	}
	if err != nil {
		return fmt.Errorf("cluster: audit stream's last record: %w", err)
	}
	var last struct {
		Seq  uint64 `json:"seq"`
		Hash string `json:"hash"`
	}
	if err := json.Unmarshal(m.Data, &last); err != nil || last.Hash == "" {
		return fmt.Errorf("cluster: audit stream's last record (message %d) is not a record: %v", m.Sequence, err)
	}
	if last.Seq != m.Sequence {
		return fmt.Errorf("cluster: audit stream's last record is record %d in message %d: the stream is not one chain", last.Seq, m.Sequence)
	}
	a.seq, a.hash, a.known = last.Seq, last.Hash, true
	return nil
}

// ReadAudit writes the cluster's audit chain to w, one record a line, in
// stream order, from the first record to the last one stored when it
// started (audit.VerifyReader checks it). It reads through nc without
// joining the cluster; prefix is Config.Prefix ("" for DefaultPrefix).
// It returns the number of records written.
func ReadAudit(ctx context.Context, nc *nats.Conn, prefix string, w io.Writer) (int, error) {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return 0, fmt.Errorf("cluster: %w", err)
	}
	name, _ := auditNames(prefix)
	s, err := js.Stream(ctx, name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return 0, fmt.Errorf("cluster: no audit stream %s: no replica has written an audit record", name)
	}
	if err != nil {
		return 0, fmt.Errorf("cluster: audit stream %s: %w", name, err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("cluster: audit stream %s: %w", name, err)
	}
	last := info.State.LastSeq
	if last == 0 {
		return 0, nil
	}
	c, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return 0, fmt.Errorf("cluster: reading audit stream %s: %w", name, err)
	}
	n := 0
	for {
		batch, err := c.FetchNoWait(512)
		if err != nil {
			return n, fmt.Errorf("cluster: reading audit stream %s: %w", name, err)
		}
		got := 0
		for m := range batch.Messages() {
			got++
			md, err := m.Metadata()
			if err != nil {
				return n, fmt.Errorf("cluster: reading audit stream %s: %w", name, err)
			}
			if _, err := w.Write(m.Data()); err != nil {
				return n, err
			}
			n++
			if md.Sequence.Stream >= last {
				return n, nil
			}
		}
		if err := batch.Error(); err != nil {
			return n, fmt.Errorf("cluster: reading audit stream %s: %w", name, err)
		}
		if got == 0 {
			select {
			case <-ctx.Done():
				return n, fmt.Errorf("cluster: reading audit stream %s: %w after %d of %d records", name, ctx.Err(), n, last)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
}
