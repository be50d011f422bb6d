package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/lab/eval"
	"github.com/netmcp/netmcp/lab/gen/suite"
)

// evalOptions are the flags of `netmcp eval`.
type evalOptions struct {
	plan       eval.Plan
	suiteFile  string
	saveSuite  string
	agent      string
	timeout    time.Duration
	json       bool
	submission string
	gnmi       bool
}

// newEvalCmd builds "netmcp eval".
func newEvalCmd() *cobra.Command {
	var o evalOptions
	cmd := &cobra.Command{
		Use:   "eval [--cases N --seed S | --suite FILE] [--agent CMD] [--json] [--submission FILE]",
		Short: "Score the controller, or any agent, on a generated fault suite in NIKA's measures",
		Long: "Run a fault suite case by case: each case's network is simulated with its faults, every device served\n" +
			"as an MCP server on 127.0.0.1, and the diagnoser asked what is wrong with the network. Prints NIKA's\n" +
			"measures (detection, localization F1, root-cause F1) overall, per fault name and by network size, false\n" +
			"alarms on healthy cases, time and MCP calls per case, and the failures (case, expected, got).\n\n" +
			"The suite is generated from --cases and --seed (lab/gen/suite), or read from --suite (YAML or JSON).\n\n" +
			"--agent CMD scores another agent instead of the controller. CMD is split into words with no shell:\n" +
			"spaces separate words; '...' is literal; \"...\" is literal but for \\\" and \\\\; a backslash outside\n" +
			"quotes makes the next character literal; $ * ~ | ; & < > are ordinary characters. For each case the\n" +
			"command is run with the lab's inventory file (the devices' MCP endpoints, as `lab up` writes it) as\n" +
			"$" + eval.InventoryEnv + " and in place of " + eval.InventoryArg + " in an argument (else as the last\n" +
			"argument), and must print NIKA's JSON on stdout within --timeout:\n" +
			"  {\"is_anomaly\": true, \"faulty_devices\": [\"r2\"], \"root_cause_name\": [\"link_down\"]}\n" +
			"optionally with \"root_causes\": [{\"resource_id\", \"fault_type\"}].\n\n" +
			"--submission writes each case's answer in NIKA's submission format, a JSON line per case.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runEval(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.plan.Cases, "cases", 100, "cases of the generated suite")
	f.Int64Var(&o.plan.Seed, "seed", 1, "seed of the generated suite")
	f.IntVar(&o.plan.Networks, "networks", 0, "generated networks the cases spread over (default one per 15 cases)")
	f.IntVar(&o.plan.MinRouters, "min-routers", 4, "smallest generated network")
	f.IntVar(&o.plan.MaxRouters, "max-routers", 60, "largest generated network")
	f.StringVar(&o.suiteFile, "suite", "", "run this suite file (YAML or JSON) instead of generating one")
	f.StringVar(&o.saveSuite, "save-suite", "", "write the suite run to this file (YAML)")
	f.StringVar(&o.agent, "agent", "", "score this agent command instead of the controller (split without a shell, see above)")
	f.DurationVar(&o.timeout, "timeout", eval.DefaultTimeout, "bound on each case's diagnosis")
	f.BoolVar(&o.json, "json", false, "print the report as JSON")
	f.StringVar(&o.submission, "submission", "", "write the answers in NIKA's submission format to this file (JSON lines)")
	f.BoolVar(&o.gnmi, "gnmi", false, "serve every router over gNMI (as lab up --gnmi) and reach it only through gnmi:// (its MCP server fronts the gnmi:// driver)")
	return cmd
}

// runEval is `netmcp eval`.
func runEval(ctx context.Context, o evalOptions, stdout, stderr io.Writer) error {
	var opts eval.Options
	if o.agent != "" {
		argv, err := eval.SplitCommand(o.agent)
		if err != nil {
			return withExit(2, err)
		}
		opts.Agent = argv
	}
	opts.Timeout = o.timeout
	opts.GNMI = o.gnmi
	if !o.json && isTerminal(stderr) {
		opts.Progress, opts.Live = stderr, true
	}
	s, err := evalSuite(o, opts.Progress)
	if err != nil {
		return err
	}
	if o.saveSuite != "" {
		if err := writeFileWith(o.saveSuite, s.WriteYAML); err != nil {
			return err
		}
	}
	rep, err := eval.Run(ctx, s, opts)
	if err != nil {
		return err
	}
	if o.submission != "" {
		if err := writeFileWith(o.submission, rep.WriteSubmission); err != nil {
			return err
		}
	}
	if o.json {
		return rep.WriteJSON(stdout)
	}
	return rep.WriteText(stdout)
}

// evalSuite reads --suite or generates the suite of --cases and --seed.
func evalSuite(o evalOptions, progress io.Writer) (*suite.Suite, error) {
	if o.suiteFile != "" {
		f, err := os.Open(o.suiteFile)
		if err != nil {
			return nil, withExit(2, err)
		}
		defer f.Close()
		s, err := suite.Read(f)
		if err != nil {
			return nil, withExit(2, err)
		}
		return s, nil
	}
	if o.plan.Cases <= 0 {
		return nil, withExit(2, errors.New("eval: --cases must be positive"))
	}
	if progress != nil {
		fmt.Fprintf(progress, "generating %d cases (seed %d) ...\n", o.plan.Cases, o.plan.Seed)
	}
	return o.plan.Suite()
}

// writeFileWith writes a file through write.
func writeFileWith(name string, write func(io.Writer) error) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
