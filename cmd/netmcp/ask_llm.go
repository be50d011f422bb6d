package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/pflag"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/controller"
	llmagent "github.com/netmcp/netmcp/controller/llm"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/serve"
)

// llmOptions are the --llm flags of `netmcp controller ask` and `netmcp controller
// serve`: an OpenAI-compatible endpoint, its model, the environment
// variable holding the key (the key itself is never a flag, never logged).
type llmOptions struct {
	url, model, keyEnv string
	sampling           bool
	maxTurns           int
	maxTokens          int64
}

// addFlags registers the flags; forServe leaves out the ones of the
// planning loop.
func (o *llmOptions) addFlags(f *pflag.FlagSet, forServe bool) {
	f.StringVar(&o.url, "llm", "", "OpenAI-compatible chat-completions endpoint, e.g. https://api.openai.com/v1 (optional)")
	f.StringVar(&o.model, "model", "", "the --llm model name")
	f.StringVar(&o.keyEnv, "llm-key-env", "OPENAI_API_KEY", "environment variable holding the --llm API key")
	f.BoolVar(&o.sampling, "llm-sampling", false, "consent to answering the devices' sampling requests through --llm without asking each time")
	if !forServe {
		f.IntVar(&o.maxTurns, "llm-max-turns", llmagent.DefaultMaxTurns, "bound on the requests to the model")
		f.Int64Var(&o.maxTokens, "llm-max-tokens", llmagent.DefaultMaxTokens, "bound on the tokens (in + out) the server reports over the run")
	}
}

// client returns the endpoint's client (nil without --llm).
func (o *llmOptions) client() (*llmagent.Client, error) {
	if o.url == "" {
		if o.model != "" || o.sampling {
			return nil, errors.New("--model and --llm-sampling need --llm URL")
		}
		return nil, nil
	}
	return llmagent.NewClient(o.url, o.model, os.Getenv(o.keyEnv))
}

// sampler returns the devices' sampling handler: nil without --llm; with
// it, a request is sent to the model only with --llm-sampling or when the
// operator, asked on the terminal (op, nil when there is none), says yes.
func (o *llmOptions) sampler(op *operator, progress io.Writer) (client.SampleFunc, error) {
	llm, err := o.client()
	if err != nil || llm == nil {
		return nil, err
	}
	//lint:ignore SA1019 MCP sampling, deprecated since 2026-07-28, brings the devices' requests to the controller's model
	s := &llmagent.Sampler{LLM: llm, Progress: progress, Consent: func(_ context.Context, device string, p *mcp.CreateMessageParams) (bool, string) {
		if o.sampling {
			return true, ""
		}
		if op == nil || !op.tty {
			return false, "no terminal to ask the operator (--llm-sampling consents in advance)"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "[%s] asks the LLM (%s, max %d tokens):\n", device, llm.Model, p.MaxTokens)
		if p.SystemPrompt != "" {
			fmt.Fprintf(&b, "  system: %s\n", oneLine(p.SystemPrompt, 300))
		}
		for _, m := range p.Messages {
			if t, ok := m.Content.(*mcp.TextContent); ok {
				fmt.Fprintf(&b, "  %s: %s\n", m.Role, oneLine(t.Text, 300))
			}
		}
		b.WriteString("Send it? [y/N] ")
		if op.confirm(b.String()) {
			return true, ""
		}
		return false, "declined by the operator"
	}}
	return s.Sample, nil
}

// describe names the endpoint for the operator, never the key.
func (o *llmOptions) describe() string {
	key := "not set"
	if os.Getenv(o.keyEnv) != "" {
		key = "set"
	}
	return fmt.Sprintf("%s, model %s, key from $%s (%s)", o.url, o.model, o.keyEnv, key)
}

// runAskLLM is `netmcp controller ask --llm URL --model NAME "intent"`: the model
// plans the intent over the controller's tools (list_devices,
// call_device_tool, ask); writes need the operator's consent on a terminal.
func runAskLLM(ctx context.Context, o askOptions, text string, stdin io.Reader, stdout, stderr io.Writer) error {
	if strings.TrimSpace(text) == "" {
		return withExit(2, errors.New(`ask: no intent (e.g. netmcp controller ask --lab --llm URL --model NAME "why can't h1 reach h3?")`))
	}
	llm, err := o.llm.client()
	if err != nil {
		return withExit(2, err)
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	inv, hosts, stop, err := askFleetInventory(ctx, o, stderr)
	if err != nil {
		return withExit(2, err)
	}
	defer stop()
	tty := isTerminal(stderr) && isReaderTerminal(stdin)
	op := &operator{in: bufio.NewReader(stdin), out: stderr, tty: tty}
	sample, err := o.llm.sampler(op, stderr)
	if err != nil {
		return withExit(2, err)
	}
	fleet, err := client.New(inv, client.Options{Name: "netmcp-controller", Version: version, CallTimeout: time.Minute, Elicit: op.elicit, Sample: sample})
	if err != nil {
		return withExit(2, err)
	}
	defer fleet.Close()
	cctx, ccancel := context.WithTimeout(ctx, 20*time.Second)
	if err := fleet.Connect(cctx); err != nil {
		fmt.Fprintf(stderr, "connect: %v (the run goes on without them)\n", err)
	}
	ccancel()
	fmt.Fprintf(stderr, "llm: %s\n", llm.Redact(o.llm.describe()))
	agent := &llmagent.Agent{
		LLM:        llm,
		Controller: &controller.Controller{Fleet: fleet, Hosts: hosts},
		Progress:   stderr,
		Limits:     llmagent.Limits{MaxTurns: o.llm.maxTurns, MaxTokens: o.llm.maxTokens, Timeout: o.timeout},
		Consent: func(_ context.Context, w llmagent.Write) (bool, string) {
			if !tty {
				return false, "no terminal to ask the operator"
			}
			args, _ := json.Marshal(w.Arguments)
			if op.confirm(fmt.Sprintf("The model asks to run %s on %s (it may change the device):\n  %s\nAllow? [y/N] ", w.Tool, w.Device, llm.Redact(oneLine(string(args), 2000)))) {
				return true, ""
			}
			return false, "declined by the operator"
		},
	}
	run, runErr := agent.Run(ctx, text)
	if run != nil {
		if o.json {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(run); err != nil {
				return err
			}
		} else {
			run.WriteText(stdout)
		}
	}
	return runErr
}

// askFleetInventory is the fleet of `ask`: the --lab started in this
// process (stop ends it) or the --inventory file.
func askFleetInventory(ctx context.Context, o askOptions, stderr io.Writer) (*inventory.Inventory, []controller.Host, func(), error) {
	switch {
	case o.inventory != "" && o.lab != "":
		return nil, nil, nil, errors.New("--inventory and --lab are exclusive")
	case o.inventory == "" && o.lab == "":
		return nil, nil, nil, errors.New("ask: give the fleet: --inventory FILE or --lab")
	case len(o.faults) > 0 && o.lab == "":
		return nil, nil, nil, errors.New("--fault needs --lab")
	}
	if o.lab == "" {
		inv, err := inventory.Load(o.inventory)
		return inv, nil, func() {}, err
	}
	file := o.lab
	if file == labBuiltin {
		file = ""
	}
	topo, err := serve.LoadTopology(file)
	if err != nil {
		return nil, nil, nil, err
	}
	lab, err := startAskLab(ctx, topo, o.faults, stderr)
	if err != nil {
		return nil, nil, nil, err
	}
	inv := lab.Inventory()
	fmt.Fprintf(stderr, "lab: %d routers serving MCP on 127.0.0.1\n", len(inv.Devices))
	return inv, controller.HostsOf(topo), func() { _ = lab.Close() }, nil
}

// confirm asks the operator a yes/no question on the terminal.
func (o *operator) confirm(question string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	fmt.Fprint(o.out, question)
	line, _ := o.in.ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes"
}

// oneLine flattens s to one line of at most n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
