package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/transport/stdio"
)

// demoStep is one request of the demo conversation and how to show its answer.
type demoStep struct {
	title, request string
	show           func(result map[string]any) string
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientInfo":{"name":"polymcp-demo","version":"1"},` +
	`"io.modelcontextprotocol/clientCapabilities":{}`

var demoSteps = []demoStep{
	{"initialize (2025-11-25)", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"polymcp-demo","version":"1"}}}`,
		func(r map[string]any) string {
			info, _ := r["serverInfo"].(map[string]any)
			return fmt.Sprintf("%v %v speaks %v", info["name"], info["version"], r["protocolVersion"])
		}},
	{"notifications/initialized", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil},
	{"tools/list", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, func(r map[string]any) string {
		tools, _ := r["tools"].([]any)
		names := make([]string, 0, len(tools))
		for _, t := range tools {
			names = append(names, fmt.Sprint(t.(map[string]any)["name"]))
		}
		return fmt.Sprintf("%d tools: %s", len(names), strings.Join(names, ", "))
	}},
	{`tools/call echo {"text":"hello, polymcp"}`, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, polymcp"}}}`, contentText},
	{`tools/call sleep {"ms":200} with a progressToken`, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":200},"_meta":{"progressToken":"p1"}}}`, contentText},
	{"resources/read test://static-text", `{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"test://static-text"}}`, func(r map[string]any) string {
		c, _ := r["contents"].([]any)
		if len(c) == 0 {
			return "no contents"
		}
		return fmt.Sprintf("%q", c[0].(map[string]any)["text"])
	}},
	{`prompts/get test_prompt_with_arguments`, `{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{"arg1":"hello","arg2":"world"}}}`, func(r map[string]any) string {
		m, _ := r["messages"].([]any)
		if len(m) == 0 {
			return "no messages"
		}
		return fmt.Sprintf("%q", m[0].(map[string]any)["content"].(map[string]any)["text"])
	}},
	{"server/discover (2026-07-28, stateless)", `{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{` + modernMeta + `}}}`, func(r map[string]any) string {
		return fmt.Sprintf("supportedVersions %v", r["supportedVersions"])
	}},
	{`tools/call echo (2026-07-28)`, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"text":"stateless hello"},` + modernMeta + `}}}`, contentText},
}

func contentText(r map[string]any) string {
	c, _ := r["content"].([]any)
	parts := make([]string, 0, len(c))
	for _, item := range c {
		parts = append(parts, fmt.Sprintf("%q", item.(map[string]any)["text"]))
	}
	return strings.Join(parts, " ")
}

// demo starts "polymcp everything" as a child over stdio and runs a short
// conversation with it, printing each exchange.
func demo(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	server := fs.String("server", "", "command line of the stdio server to call (default: this binary's everything)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err // -h: run prints the usage
		}
		return usageError(err.Error())
	}
	argv, err := serverCommand(*server)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	p, err := stdio.Spawn(ctx, argv[0], argv[1:]...)
	if err != nil {
		return err
	}
	defer p.Close()
	fmt.Fprintf(out, "serving: %s (stdio, pid %d)\n", strings.Join(argv, " "), p.Pid())
	for _, st := range demoSteps {
		if err := runStep(ctx, p, st, out); err != nil {
			return fmt.Errorf("%s: %w (server stderr: %s)", st.title, err, p.Stderr())
		}
	}
	if err := p.CloseStdin(); err != nil {
		return err
	}
	code, err := p.Wait()
	if err != nil {
		return err
	}
	if code != 0 {
		return fmt.Errorf("server exited with status %d", code)
	}
	fmt.Fprintln(out, "stdin closed: the server exited with status 0")
	return nil
}

func serverCommand(line string) ([]string, error) {
	if line != "" {
		return strings.Fields(line), nil
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return []string{self, "everything"}, nil
}

// runStep sends one message and, for a request, prints the notifications
// that precede its answer and the answer.
func runStep(ctx context.Context, p *stdio.Process, st demoStep, out io.Writer) error {
	fmt.Fprintf(out, "→ %s\n", st.title)
	if err := p.SendContext(ctx, []byte(st.request)); err != nil {
		return err
	}
	if st.show == nil {
		return nil
	}
	for {
		line, err := p.RecvContext(ctx)
		if err != nil {
			return err
		}
		var msg struct {
			Method string         `json:"method"`
			Params map[string]any `json:"params"`
			Result map[string]any `json:"result"`
			Error  *jsonrpc.Error `json:"error"`
		}
		if err := jsonrpc.Unmarshal(line, &msg); err != nil {
			return fmt.Errorf("undecodable line %q: %w", line, err)
		}
		switch {
		case msg.Method == "notifications/progress":
			fmt.Fprintf(out, "  … progress %v/%v\n", msg.Params["progress"], msg.Params["total"])
		case msg.Method != "":
			fmt.Fprintf(out, "  … %s\n", msg.Method)
		case msg.Error != nil:
			return errors.New(msg.Error.Message)
		default:
			fmt.Fprintf(out, "← %s\n", st.show(msg.Result))
			return nil
		}
	}
}
