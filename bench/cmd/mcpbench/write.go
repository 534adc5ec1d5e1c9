package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/polymcp/polymcp/bench/internal/report"
)

// writeReport writes <out>/<UTC date>-<kind>.md and .json and returns their paths.
func writeReport(out, kind string, meta *Meta, table *report.Table, best, all []report.Result) ([]string, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	base := filepath.Join(out, time.Now().UTC().Format("2006-01-02")+"-"+kind)
	doc := struct {
		Meta *Meta           `json:"meta"`
		Best []report.Result `json:"best"`
		All  []report.Result `json:"all_rounds"`
	}{meta, best, all}
	js, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(base+".json", append(js, '\n'), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(base+".md", []byte(markdown(meta, table, best)), 0o644); err != nil {
		return nil, err
	}
	return []string{base + ".md", base + ".json"}, nil
}

func markdown(meta *Meta, table *report.Table, best []report.Result) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# %s, %s\n\n", titles[meta.Report], meta.Started[:10])
	p("One `mcpbench suite` run, %s to %s (UTC), on %s, %d cores, Linux %s, %s.\n",
		meta.Started[11:19], meta.Finished[11:19], meta.CPU, meta.Cores, meta.Kernel, meta.Go)
	p("Each server was measured %s in each configuration (%s warmup, then a %s window), ", times(meta.Rounds), meta.Warmup, meta.Duration)
	p("the servers taking turns within each configuration; the round with the most calls/s is shown. ")
	p("A fresh server process serves each measurement. CPU times come from /proc in units of 1/%d s.\n\n", meta.ClockTicks)
	p("Load average (1, 5, 15 min): %s before, %s after", meta.LoadBefore, meta.LoadAfter)
	if busy(meta.LoadBefore, meta.Cores) || busy(meta.LoadAfter, meta.Cores) {
		p(", more than the %d cores: other work was competing with the benchmark, so expect extra noise", meta.Cores)
	}
	p(".\n\n")
	p("**These are ratios from one run on a small, noisy machine, not absolute numbers.** ")
	p("Compare servers within a row group; the driver shares the machine with the server.\n\n")
	p("| server | transport | command | built from |\n|:---|:---|:---|:---|\n")
	for _, s := range meta.Servers {
		v := s.Version
		if s.Skipped != "" {
			v = "skipped: " + s.Skipped
		}
		p("| %s | %s | `%s` | %s |\n", s.Name, transportCell(s.Transport, best, s.Name), s.Command, v)
	}
	p("\n")
	for _, n := range meta.Notes {
		p("Note: %s\n\n", n)
	}
	p("## Results\n\n")
	table.WriteMarkdown(&b)
	p("\n")
	if meta.Report == kindHTTP {
		p("- **C**: requests kept in flight, each on its own keep-alive connection; **payload**: bytes of echoed text each way.\n")
	} else {
		p("- **C**: requests kept in flight by one pipelined client; **payload**: bytes of echoed text each way.\n")
	}
	p("- **calls/s**: correct answers per second of the window. **p50/p99**: send-to-answer latency.\n")
	p("- **CPU µs/call**: the server's user+system CPU over the window divided by the calls answered in it.\n")
	p("- **peak RSS**: the server's VmHWM at the end of the window.\n")
	p("- **÷ floor**, **÷ mcpgo**: this server's calls/s (higher is better) and CPU per call (lower is better) ")
	p("divided by that server's in the same configuration.")
	switch meta.Report {
	case kindStdio:
		p(" The floor is a hand-written loop that does nothing but decode and encode.\n")
	case kindHTTP:
		p(" The floor is a bare `net/http` handler that decodes the body with sonic and encodes the answer.\n")
		p("- **transport**: `http` is the session shape of 2025-11-25 (initialize, then `Mcp-Session-Id` ")
		p("on every POST if the server minted one: \"session\" below; stateless servers mint none), ")
		p("`http-modern` the stateless 2026-07-28 shape (`_meta` and the `Mcp-Method`/`Mcp-Name` headers on every POST, no handshake).\n")
	case kindCAPI:
		p(" polymcp is `polymcp everything`, pure Go; capi is the C example, the same Go core serving tools through libpolymcp.so and C callbacks.\n")
	}
	if s := problems(best); s != "" {
		p("\n## Failures and errors\n\n%s", s)
	}
	return b.String()
}

var titles = map[string]string{
	kindStdio: "MCP stdio benchmark",
	kindHTTP:  "MCP Streamable HTTP benchmark",
	kindCAPI:  "polymcp C ABI benchmark (stdio)",
}

// transportCell names a server's transport, with the revision it ran at and
// whether it minted an HTTP session.
func transportCell(transport string, best []report.Result, name string) string {
	if transport == "" {
		return "–"
	}
	for _, r := range best {
		if r.Server != name || r.Transport != transport || r.Failure != "" {
			continue
		}
		cell := transport
		if r.Protocol != "" {
			cell += " " + r.Protocol
		}
		if r.Session {
			cell += ", session"
		}
		if r.Replies != "" {
			cell += ", " + r.Replies + " replies"
		}
		return cell
	}
	return transport
}

func problems(results []report.Result) string {
	var b strings.Builder
	for _, r := range results {
		if r.OK() {
			continue
		}
		fmt.Fprintf(&b, "- %s C=%d %s: ", r.Server, r.Concurrency, report.Bytes(r.Payload))
		if r.Failure != "" {
			fmt.Fprintf(&b, "failed: %s", r.Failure)
		}
		if r.Errors > 0 {
			fmt.Fprintf(&b, "%d errors, e.g. %s", r.Errors, strings.Join(r.ErrorSamples, "; "))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

// busy reports whether a load average line's 1-minute figure exceeds cores.
func busy(loadavg string, cores int) bool {
	one, _, _ := strings.Cut(loadavg, " ")
	v, err := strconv.ParseFloat(one, 64)
	return err == nil && v > float64(cores)
}
