package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/polymcp/polymcp/bench/internal/httpc"
	"github.com/polymcp/polymcp/bench/internal/report"
)

// Report kinds: each writes results/<UTC date>-<kind>.md and .json.
const (
	kindStdio = "stdio"
	kindHTTP  = "http"
	kindCAPI  = "capi"
)

var kinds = []string{kindStdio, kindHTTP, kindCAPI}

// peers are the servers built from this module (servers/<name>).
var peers = []string{"gosdk", "mcpgo", "floor"}

// refs are, per report, the servers every other one is compared with.
var refs = map[string][]string{
	kindStdio: {"floor", "mcpgo"},
	kindHTTP:  {"floor", "mcpgo-stateless"},
	kindCAPI:  {"polymcp"},
}

type suiteFlags struct {
	loadFlags
	polymcp    string
	capi       string
	servers    string
	transports string
	extras     extraList
	rounds     int
	out        string
	bin        string
}

// runSuite builds the peers, measures every server in every configuration,
// interleaved, and writes one report per kind.
func runSuite(args []string) error {
	fs := flag.NewFlagSet("suite", flag.ExitOnError)
	var sf suiteFlags
	sf.register(fs, 3*time.Second)
	fs.StringVar(&sf.polymcp, "polymcp", "../build/polymcp everything", "polymcp server `command`, relative to bench/; skipped if missing")
	fs.StringVar(&sf.capi, "capi", "../build/examples/c/echo_server", "the C example's `command` (polymcp through libpolymcp.so), for the capi report; skipped if missing")
	fs.StringVar(&sf.transports, "transport", "all", "comma-separated `reports` to run: stdio, http, capi, or all")
	fs.StringVar(&sf.servers, "servers", "all", "comma-separated `servers` to run, by name (mcpgo-stateless) or family (mcpgo), or all")
	fs.Var(&sf.extras, "extra", "an extra server, `name=transport:command args...` (transport stdio, http or http-modern); repeatable")
	fs.IntVar(&sf.rounds, "rounds", 2, "measurements of each server and configuration; the best is reported")
	fs.StringVar(&sf.out, "out", "results", "`dir`ectory for the reports, relative to bench/")
	fs.StringVar(&sf.bin, "bin", "bin", "`dir`ectory for the built peers, relative to bench/")
	fs.Parse(args)
	if sf.rounds < 1 {
		return errors.New("-rounds must be at least 1")
	}
	want, err := sf.kinds()
	if err != nil {
		return err
	}
	if err := chdirModuleRoot(); err != nil {
		return err
	}
	base := newMeta(&sf)
	specs, err := sf.specs(base, want)
	if err != nil {
		return err
	}
	if len(specs) == 0 {
		return errors.New("no server to run")
	}
	// Servers on one transport take turns; stdio first, then HTTP.
	var stdioSpecs, httpSpecs []spec
	for _, s := range specs {
		if s.transport == "stdio" {
			stdioSpecs = append(stdioSpecs, s)
		} else {
			httpSpecs = append(httpSpecs, s)
		}
	}
	total := sf.rounds * len(sf.configs()) * len(specs)
	per := sf.warmup + sf.duration + 400*time.Millisecond
	fmt.Fprintf(os.Stderr, "%d measurements, about %v\n", total, (time.Duration(total) * per).Round(time.Second))
	progress := &counter{total: total}
	all := runRounds(stdioSpecs, &sf, progress)
	all = append(all, runRounds(httpSpecs, &sf, progress)...)
	finished, loadAfter := time.Now().UTC().Format(time.RFC3339), loadAvg()
	var paths []string
	for _, kind := range kinds {
		if !want[kind] {
			continue
		}
		in := map[string]bool{} // name and transport
		for _, s := range specs {
			if slices.Contains(s.reports, kind) {
				in[s.name+" "+s.transport] = true
			}
		}
		var mine []report.Result
		for _, r := range all {
			if in[r.Server+" "+r.Transport] {
				mine = append(mine, r)
			}
		}
		if len(mine) == 0 {
			base.note("%s report skipped: none of its servers ran", kind)
			continue
		}
		meta := base.forKind(kind, in)
		meta.Finished, meta.LoadAfter = finished, loadAfter
		best := pickBest(mine)
		table := report.NewTable(best, refs[kind]...)
		fmt.Printf("\n%s\n", kind)
		table.WriteText(os.Stdout)
		p, err := writeReport(sf.out, kind, meta, table, best, mine)
		if err != nil {
			return err
		}
		paths = append(paths, p...)
	}
	fmt.Printf("\nwrote %s\n", strings.Join(paths, ", "))
	return nil
}

func (sf *suiteFlags) kinds() (map[string]bool, error) {
	want := map[string]bool{}
	for k := range strings.SplitSeq(sf.transports, ",") {
		switch k = strings.TrimSpace(k); k {
		case "all":
			for _, k := range kinds {
				want[k] = true
			}
		case kindStdio, kindHTTP, kindCAPI:
			want[k] = true
		default:
			return nil, fmt.Errorf("-transport: unknown report %q (stdio, http, capi, all)", k)
		}
	}
	return want, nil
}

// wants reports whether -servers selects name.
func (sf *suiteFlags) wants(name string) bool {
	family, _, _ := strings.Cut(name, "-")
	for s := range strings.SplitSeq(sf.servers, ",") {
		if s = strings.TrimSpace(s); s == "all" || s == name || s == family {
			return true
		}
	}
	return false
}

// specs builds the peers and returns the servers to run, noting in meta any
// that are skipped.
func (sf *suiteFlags) specs(meta *Meta, want map[string]bool) ([]spec, error) {
	var specs []spec
	add := func(s spec, version string) {
		if !sf.wants(s.name) {
			return
		}
		var reports []string
		for _, k := range s.reports {
			if want[k] {
				reports = append(reports, k)
			}
		}
		if len(reports) == 0 {
			return
		}
		s.reports = reports
		specs = append(specs, s)
		meta.Servers = append(meta.Servers, ServerMeta{Name: s.name, Transport: s.transport, Command: s.command(), Version: version})
	}
	skip := func(name, command string, err error) {
		meta.note("%s skipped: %v", name, err)
		meta.Servers = append(meta.Servers, ServerMeta{Name: name, Command: command, Skipped: err.Error()})
	}

	if argv := strings.Fields(sf.polymcp); checkCommand(argv) != nil {
		skip("polymcp", sf.polymcp, checkCommand(argv))
	} else {
		v := polymcpVersion()
		add(spec{name: "polymcp", transport: "stdio", argv: argv, reports: []string{kindStdio, kindCAPI}}, v)
		add(spec{name: "polymcp", transport: "http-modern", argv: argv, reports: []string{kindHTTP}}, v)
		add(spec{name: "polymcp-legacy", transport: "http", argv: argv, reports: []string{kindHTTP}}, v)
	}
	if want[kindCAPI] && sf.wants("capi") {
		if argv := strings.Fields(sf.capi); checkCommand(argv) != nil {
			skip("capi", sf.capi, checkCommand(argv))
		} else {
			// The ABI's own cost is measured with Go's collector setting, the
			// one polymcp runs with; capi-default is the library as shipped
			// (gc_percent 200 unless GOGC is set).
			v := polymcpVersion() + " through libpolymcp.so"
			add(spec{name: "capi", transport: "stdio", argv: append([]string{"env", "GOGC=100"}, argv...), reports: []string{kindCAPI}}, v)
			add(spec{name: "capi-default", transport: "stdio", argv: argv, reports: []string{kindCAPI}}, v+", default gc_percent")
		}
	}

	var build []string
	for _, p := range peers {
		wanted := want[kindStdio] && sf.wants(p)
		for _, h := range httpPeers[p] {
			wanted = wanted || want[kindHTTP] && sf.wants(h.name)
		}
		if wanted {
			build = append(build, p)
		}
	}
	if err := buildPeers(sf.bin, build); err != nil {
		return nil, err
	}
	for _, p := range build {
		cmd, v := filepath.Join(sf.bin, p), peerVersion(p)
		add(spec{name: p, transport: "stdio", argv: []string{cmd}, reports: []string{kindStdio}}, v)
		for _, h := range httpPeers[p] {
			add(spec{name: h.name, transport: "http", argv: append([]string{cmd}, h.args...), reports: []string{kindHTTP}}, v)
		}
	}

	for _, e := range sf.extras {
		kind := kindHTTP
		if e.transport == "stdio" {
			kind = kindStdio
		}
		if err := checkCommand(e.argv); err != nil {
			skip(e.name, strings.Join(e.argv, " "), err)
			continue
		}
		add(spec{name: e.name, transport: e.transport, argv: e.argv, reports: []string{kind}}, "extra")
	}
	seen := map[string]bool{}
	for _, s := range specs {
		for _, k := range s.reports {
			if seen[k+" "+s.name] {
				return nil, fmt.Errorf("two servers named %q in the %s report", s.name, k)
			}
			seen[k+" "+s.name] = true
		}
	}
	return specs, nil
}

// httpPeers are the HTTP configurations of each peer binary: the arguments
// before the driver's --http 127.0.0.1:0.
var httpPeers = map[string][]struct {
	name string
	args []string
}{
	"gosdk": {{"gosdk-sse", nil}, {"gosdk-stateless", []string{"-stateless"}}},
	"mcpgo": {{"mcpgo-stateful", nil}, {"mcpgo-stateless", []string{"-stateless"}}},
	"floor": {{"floor", nil}},
}

// command is how the report shows the spec's command line.
func (s *spec) command() string {
	cmd := strings.Join(s.argv, " ")
	if s.transport != "stdio" && !strings.Contains(cmd, httpc.PortPlaceholder) {
		cmd += " " + strings.Join(httpc.ListenArgs, " ")
	}
	return cmd
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

// counter numbers the measurements for the progress lines.
type counter struct{ n, total int }

// runRounds measures every spec in every configuration. For each
// configuration it runs each server in turn, round after round, rotating the
// order, so that drifts in machine noise fall on all servers alike.
func runRounds(specs []spec, sf *suiteFlags, progress *counter) []report.Result {
	if len(specs) == 0 {
		return nil
	}
	var all []report.Result
	for _, c := range sf.configs() {
		for round := 1; round <= sf.rounds; round++ {
			for i := range specs {
				s := specs[(i+round-1)%len(specs)]
				progress.n++
				r := measure(s, &sf.loadFlags, c, round)
				fmt.Fprintf(os.Stderr, "[%d/%d] %s\n", progress.n, progress.total, progressLine(&r))
				all = append(all, r)
			}
		}
	}
	return all
}

func progressLine(r *report.Result) string {
	head := fmt.Sprintf("%-15s %-11s C=%-3d %-7s round %d: ", r.Server, r.Transport, r.Concurrency, report.Bytes(r.Payload), r.Round)
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
