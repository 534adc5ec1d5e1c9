package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/polymcp/polymcp/bench/internal/report"
)

// peers are the servers built from this module, in table order after polymcp.
var peers = []string{"gosdk", "mcpgo", "floor"}

// refs are the servers every other one is compared with in the report.
var refs = []string{"floor", "mcpgo"}

type suiteFlags struct {
	loadFlags
	polymcp string
	servers string
	rounds  int
	out     string
	bin     string
}

// runSuite builds the peers, measures every server in every configuration,
// interleaved, and writes the report.
func runSuite(args []string) error {
	fs := flag.NewFlagSet("suite", flag.ExitOnError)
	var sf suiteFlags
	sf.register(fs, 4*time.Second)
	fs.StringVar(&sf.polymcp, "polymcp", "../build/polymcp everything", "polymcp server `command`, relative to bench/; skipped if missing")
	fs.StringVar(&sf.servers, "servers", "polymcp,"+strings.Join(peers, ","), "comma-separated `servers` to run")
	fs.IntVar(&sf.rounds, "rounds", 2, "measurements of each server and configuration; the best is reported")
	fs.StringVar(&sf.out, "out", "results", "`dir`ectory for the report, relative to bench/")
	fs.StringVar(&sf.bin, "bin", "bin", "`dir`ectory for the built peers, relative to bench/")
	fs.Parse(args)
	if sf.rounds < 1 {
		return errors.New("-rounds must be at least 1")
	}
	if err := chdirModuleRoot(); err != nil {
		return err
	}
	meta := newMeta(&sf)
	specs, err := sf.specs(meta)
	if err != nil {
		return err
	}
	if len(specs) == 0 {
		return errors.New("no server to run")
	}
	all := runRounds(specs, &sf)
	best := pickBest(all)
	meta.Finished = time.Now().UTC().Format(time.RFC3339)
	meta.LoadAfter = loadAvg()
	table := report.NewTable(best, refs...)
	fmt.Println()
	table.WriteText(os.Stdout)
	paths, err := writeReport(sf.out, meta, table, best, all)
	if err != nil {
		return err
	}
	fmt.Printf("\nwrote %s\n", strings.Join(paths, ", "))
	return nil
}

// specs builds the peers and returns the servers to run, noting in meta any
// that are skipped.
func (sf *suiteFlags) specs(meta *Meta) ([]spec, error) {
	want := map[string]bool{}
	for s := range strings.SplitSeq(sf.servers, ",") {
		want[strings.TrimSpace(s)] = true
	}
	var specs []spec
	if want["polymcp"] {
		argv := strings.Fields(sf.polymcp)
		if err := checkCommand(argv); err != nil {
			meta.note("polymcp skipped: %v", err)
			meta.Servers = append(meta.Servers, ServerMeta{Name: "polymcp", Command: sf.polymcp, Skipped: err.Error()})
		} else {
			specs = append(specs, spec{name: "polymcp", transport: "stdio", argv: argv})
			meta.Servers = append(meta.Servers, ServerMeta{Name: "polymcp", Command: sf.polymcp, Version: polymcpVersion()})
		}
	}
	var build []string
	for _, p := range peers {
		if want[p] {
			build = append(build, p)
		}
	}
	if err := buildPeers(sf.bin, build); err != nil {
		return nil, err
	}
	for _, p := range build {
		cmd := filepath.Join(sf.bin, p)
		specs = append(specs, spec{name: p, transport: "stdio", argv: []string{cmd}})
		meta.Servers = append(meta.Servers, ServerMeta{Name: p, Command: cmd, Version: peerVersion(p)})
	}
	return specs, nil
}

func checkCommand(argv []string) error {
	if len(argv) == 0 {
		return errors.New("empty command")
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		return fmt.Errorf("%s not found or not executable", argv[0])
	}
	return nil
}

// buildPeers compiles the named servers/ packages into dir.
func buildPeers(dir string, names []string) error {
	if len(names) == 0 {
		return nil
	}
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for _, n := range names {
		args = append(args, "./servers/"+n)
	}
	fmt.Fprintf(os.Stderr, "go %s\n", strings.Join(args, " "))
	cmd := exec.Command("go", args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building peers: %w", err)
	}
	return nil
}

// runRounds measures every spec in every configuration. For each
// configuration it runs each server in turn, round after round, rotating the
// order, so that drifts in machine noise fall on all servers alike.
func runRounds(specs []spec, sf *suiteFlags) []report.Result {
	configs := sf.configs()
	total := len(configs) * sf.rounds * len(specs)
	per := sf.warmup + sf.duration + 300*time.Millisecond
	fmt.Fprintf(os.Stderr, "%d measurements, about %v\n", total, (time.Duration(total) * per).Round(time.Second))
	var all []report.Result
	n := 0
	for _, c := range configs {
		for round := 1; round <= sf.rounds; round++ {
			for i := range specs {
				s := specs[(i+round-1)%len(specs)]
				n++
				r := measure(s, &sf.loadFlags, c, round)
				fmt.Fprintf(os.Stderr, "[%d/%d] %s\n", n, total, progressLine(&r))
				all = append(all, r)
			}
		}
	}
	return all
}

func progressLine(r *report.Result) string {
	head := fmt.Sprintf("%-8s C=%-3d %-7s round %d: ", r.Server, r.Concurrency, report.Bytes(r.Payload), r.Round)
	if r.Failure != "" {
		return head + "FAILED: " + r.Failure
	}
	return head + fmt.Sprintf("%8.0f calls/s  p50 %7.1f µs  p99 %8.1f µs  cpu %7.1f µs/call  rss %5.1f MiB  errors %d",
		r.CallsPerSec, r.P50us, r.P99us, r.ServerCPUus, r.PeakRSSMiB, r.Errors)
}

// pickBest keeps the better round of each server and configuration, in
// configuration-major, first-seen server order.
func pickBest(all []report.Result) []report.Result {
	type id struct {
		server string
		key    report.Key
	}
	index := map[id]int{}
	var best []report.Result
	for _, r := range all {
		k := id{r.Server, r.Key()}
		if i, ok := index[k]; !ok {
			index[k] = len(best)
			best = append(best, r)
		} else if report.Better(&r, &best[i]) {
			best[i] = r
		}
	}
	return best
}
