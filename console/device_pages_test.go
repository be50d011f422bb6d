package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
)

// TestBrowserDevicePage opens device pages in Chromium: a commit made
// through MCP is in r1's configuration history with the identity the
// device recorded and its diff, exactly as MCP gives it (masked by the
// device); on r2's open page, the syslog line of a link fault appears
// without a reload.
func TestBrowserDevicePage(t *testing.T) {
	ctx, errs := browser(t)
	l := newTestLab(t)
	c, base := startConsole(t, l)

	// Another MCP client commits on r1, approving its own change.
	fleet, err := client.New(l.inv, client.Options{Name: "committer", CallTimeout: time.Minute,
		Elicit: func(context.Context, *client.Device, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true, "confirm": true}}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fleet.Close() })
	fleet.Start()
	r1 := fleet.Device("r1")
	mctx, mcancel := context.WithTimeout(context.Background(), time.Minute)
	defer mcancel()
	const desc = "to the core, changed from the console test"
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{netproto.ToolYangEdit, map[string]any{"edit": []any{map[string]any{
			"path":  "/openconfig-interfaces:interfaces/interface[name='LoopBack100']",
			"value": map[string]any{"config": map[string]any{"name": "LoopBack100", "type": "iana-if-type:softwareLoopback", "description": desc}}}}}},
		{netproto.ToolCommit, map[string]any{"comment": "loopback for the console test"}},
	} {
		if _, err := r1.CallTool(mctx, call.tool, call.args); err != nil {
			t.Fatalf("%s: %v", call.tool, err)
		}
	}
	res, err := r1.ReadResource(mctx, "network:///config/history")
	if err != nil {
		t.Fatal(err)
	}
	var hist struct {
		Commits []struct {
			ID   string `json:"commit-id"`
			User string `json:"user"`
		} `json:"commits"`
	}
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &hist); err != nil || len(hist.Commits) == 0 || hist.Commits[0].User == "" {
		t.Fatalf("r1's history %s: %v", res.Contents[0].Text, err)
	}
	commit := hist.Commits[0]
	// What MCP gives the lab's identity, masked by the device: the page
	// must show the same.
	res, err = r1.ReadResource(mctx, "network:///config/history/"+commit.ID)
	if err != nil {
		t.Fatal(err)
	}
	var mcpDiff struct {
		Diff string `json:"diff"`
	}
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &mcpDiff); err != nil {
		t.Fatal(err)
	}

	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := chromedp.Do(wctx, chromedp.Navigate(c.LoginURL()), chromedp.WaitVisible(chromedp.CSS(`svg.map`)),
		chromedp.Navigate(base+"/device/r1"), chromedp.WaitVisible(chromedp.CSS(`#history`))); err != nil {
		t.Fatal(err)
	}
	sel := fmt.Sprintf(`document.querySelector('li.commit[data-commit=%q]')`, commit.ID)
	who, err := chromedp.Run(wctx, chromedp.Evaluate[string](sel+`?.querySelector('.who')?.textContent ?? ''`))
	if err != nil {
		t.Fatal(err)
	}
	if who != commit.User {
		t.Errorf("commit %s by %q on the page, want %q (the device's history)", commit.ID, who, commit.User)
	}
	diff, err := chromedp.Run(wctx, chromedp.Evaluate[string](sel+`?.querySelector('pre.diff')?.textContent ?? ''`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(diff, "+") || !strings.Contains(diff, desc) {
		t.Errorf("commit %s's diff on the page does not show the change:\n%s", commit.ID, diff)
	}
	if strings.TrimSpace(diff) != strings.TrimSpace(mcpDiff.Diff) {
		t.Errorf("commit %s's diff on the page is not the one MCP gives:\npage:\n%s\nMCP:\n%s", commit.ID, diff, mcpDiff.Diff)
	}

	if _, err := chromedp.Run(wctx, chromedp.Evaluate[bool](sel+`.querySelector('details').open = true`)); err != nil {
		t.Fatal(err)
	}
	artifact(t, wctx, "device-history")

	// r2's page, open while a fault takes a link of r2 down.
	const ifname = "GigabitEthernet0/0/0/1"
	if err := chromedp.Do(wctx, chromedp.Navigate(base+"/device/r2"), chromedp.WaitVisible(chromedp.CSS(`#syslog`))); err != nil {
		t.Fatal(err)
	}
	count := `document.getElementById('syslog').textContent.split('\n').filter(l => l.includes('` + ifname + `') && /down/i.test(l)).length`
	before, err := chromedp.Run(wctx, chromedp.Evaluate[int](`window.notReloaded = true; `+count))
	if err != nil {
		t.Fatal(err)
	}
	f, err := topology.ParseFault("link_down r2:" + ifname)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.lab.Inject(f); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	waitJS(t, wctx, 10*time.Second, "the fault's syslog line on r2's page", fmt.Sprintf(`window.notReloaded === true && %s > %d`, count, before))
	t.Logf("fault injected to its syslog line on the open page: %v", time.Since(start))
	artifact(t, wctx, "device-syslog")
	if e := errs.get(); len(e) > 0 {
		t.Errorf("console errors: %v", e)
	}
}
