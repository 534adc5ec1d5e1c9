package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/polymcp/polymcp/bench/internal/report"
)

// runOne measures one server over transport in every configuration, printing
// a JSON line per configuration to stdout and a table to stderr.
func runOne(transport string, args []string) error {
	fs := flag.NewFlagSet(transport, flag.ExitOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: mcpbench %s -name NAME [flags] -- CMD ARGS...\n", transport)
		fs.PrintDefaults()
	}
	name := fs.String("name", "", "server `name` for the report (default: the command)")
	profile := fs.String("cpuprofile", "", "write the driver's CPU profile to `file`")
	var lf loadFlags
	lf.register(fs, 5*time.Second)
	fs.Parse(args)
	if *profile != "" {
		stop, err := startProfile(*profile)
		if err != nil {
			return err
		}
		defer stop()
	}
	argv := fs.Args()
	if len(argv) == 0 {
		fs.Usage()
		return errors.New("no server command after --")
	}
	if *name == "" {
		*name = argv[0]
	}
	s := spec{name: *name, transport: transport, argv: argv}
	enc := json.NewEncoder(os.Stdout)
	var results []report.Result
	bad := 0
	for _, c := range lf.configs() {
		r := measure(s, &lf, c, 0)
		if !r.OK() {
			bad++
		}
		results = append(results, r)
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	fmt.Fprintln(os.Stderr)
	report.NewTable(results).WriteText(os.Stderr)
	if bad > 0 {
		return fmt.Errorf("%d of %d measurements failed or had errors", bad, len(results))
	}
	return nil
}

// startProfile profiles the driver itself, to check it is not the bottleneck.
func startProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
