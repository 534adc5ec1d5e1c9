// Command mcpbench benchmarks MCP servers side by side.
//
//	mcpbench stdio -name NAME [flags] -- CMD ARGS...        measure one stdio server
//	mcpbench http -name NAME [flags] -- CMD ARGS...         one Streamable HTTP server, 2025-11-25 session shape
//	mcpbench http-modern -name NAME [flags] -- CMD ARGS...  one Streamable HTTP server, 2026-07-28 stateless shape
//	mcpbench suite [flags]                                  build the peers, measure all, write results/
//
// See bench/README.md for what the numbers mean.
package main

import (
	"fmt"
	"os"
)

const usage = `usage:
  mcpbench stdio -name NAME [flags] -- CMD ARGS...
  mcpbench http -name NAME [flags] -- CMD ARGS...
  mcpbench http-modern -name NAME [flags] -- CMD ARGS...
  mcpbench suite [flags]
Run "mcpbench stdio -h" or "mcpbench suite -h" for the flags. An HTTP server
command is run with --http 127.0.0.1:0 appended and must print its URL,
unless an argument holds {port} (see bench/README.md).
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "stdio", "http", "http-modern":
		err = runOne(cmd, args)
	case "suite":
		err = runSuite(args)
	case "-h", "-help", "--help", "help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "mcpbench: unknown command %q\n%s", cmd, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpbench:", err)
		os.Exit(1)
	}
}
