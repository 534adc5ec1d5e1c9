// Command mcpbench benchmarks MCP servers side by side.
//
//	mcpbench stdio -name NAME [flags] -- CMD ARGS...   measure one stdio server
//	mcpbench suite [flags]                             build the peers, measure all, write results/
//
// See bench/README.md for what the numbers mean.
package main

import (
	"fmt"
	"os"
)

const usage = `usage:
  mcpbench stdio -name NAME [flags] -- CMD ARGS...
  mcpbench suite [flags]
Run "mcpbench stdio -h" or "mcpbench suite -h" for the flags.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "stdio": // an "http" command will join it once measure has an http dialer
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
