package cluster

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	netaudit "github.com/netmcp/netmcp/audit"
)

// TestAuditChainSharedByReplicas: three replicas append audit records at
// once, from several goroutines each, to the cluster's audit chain; the
// stream holds every record once, as one chain audit.VerifyReader
// accepts, and a record edited on its way is found.
func TestAuditChainSharedByReplicas(t *testing.T) {
	url := startNATS(t, 1)[0]
	inv := devices(3)
	const writers, each = 3, 40
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 3*writers*each)
	for i := range 3 {
		n := join(t, url, fmt.Sprintf("aud%d", i), testTTL, 1, inv, nil)
		chain, err := n.Audit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range each {
					rec := netaudit.Record{Kind: netaudit.KindRequest, Method: "tools/call", Identity: n.Instance(), Tool: fmt.Sprintf("w%d-%d", w, k)}
					if k%2 == 0 {
						errs <- chain.Export(rec)
						continue
					}
					got, err := chain.Append(ctx, rec)
					if err == nil && (got.Seq == 0 || got.Hash == "") {
						err = fmt.Errorf("appended record %+v has no place in the chain", got)
					}
					errs <- err
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	n, err := ReadAudit(ctx, connect(t, url), "", &buf)
	if err != nil {
		t.Fatal(err)
	}
	want := 3 * writers * each
	if n != want {
		t.Fatalf("read %d records, want %d", n, want)
	}
	rep, err := netaudit.VerifyReader(bytes.NewReader(buf.Bytes()))
	if err != nil || rep.Records != want {
		t.Fatalf("the shared chain: %d records verified, %v; want %d", rep.Records, err, want)
	}
	for i := range 3 {
		if c := strings.Count(buf.String(), fmt.Sprintf(`"identity":"aud%d-`, i)); c != writers*each {
			t.Errorf("replica aud%d has %d records in the chain, want %d", i, c, writers*each)
		}
	}
	edited := strings.Replace(buf.String(), `"tool":"w1-7"`, `"tool":"w1-8"`, 1)
	if _, err := netaudit.VerifyReader(strings.NewReader(edited)); err == nil || !strings.Contains(err.Error(), "edited") {
		t.Errorf("an edited record verified: %v", err)
	}
}
