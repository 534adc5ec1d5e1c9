package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/polymcp/polymcp/client"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/transport"
	"github.com/polymcp/polymcp/transport/stdio"
)

// demo calls the everything example with polymcp's client, twice: once in
// the legacy 2025-11-25 session shape, once negotiated (2026-07-28,
// stateless), printing each exchange. It serves the example itself over
// stdio, or calls the stdio command of --server, or the URL of --http.
func demo(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	server := fs.String("server", "", "command line of the stdio server to call (default: this binary's everything)")
	url := fs.String("http", "", "call this Streamable HTTP URL instead of a stdio server")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err // -h: run prints the usage
		}
		return usageError(err.Error())
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	t := target{url: *url, timeout: 30 * time.Second}
	if t.url == "" {
		argv, err := serverCommand(*server)
		if err != nil {
			return err
		}
		t.command = argv
		fmt.Fprintf(out, "serving: %s (stdio)\n", strings.Join(argv, " "))
	} else {
		fmt.Fprintf(out, "calling: %s (Streamable HTTP)\n", t.url)
	}
	t.revision = spec.Rev20251125
	if err := demoSession(ctx, t, out, legacySteps); err != nil {
		return err
	}
	t.revision = ""
	return demoSession(ctx, t, out, modernSteps)
}

// demoStep is one exchange of the demo.
type demoStep struct {
	title string
	run   func(ctx context.Context, c *client.Client, out io.Writer) (string, error)
}

var legacySteps = []demoStep{
	{"tools/list", func(ctx context.Context, c *client.Client, _ io.Writer) (string, error) {
		tools, err := c.ListTools(ctx)
		names := make([]string, len(tools))
		for i, t := range tools {
			names[i] = t.Name
		}
		return fmt.Sprintf("%d tools: %s", len(names), strings.Join(names, ", ")), err
	}},
	{`tools/call echo {"text":"hello, polymcp"}`, callText("echo", map[string]any{"text": "hello, polymcp"})},
	{`tools/call sleep {"ms":200} with a progressToken`, callText("sleep", map[string]any{"ms": 200})},
	{"resources/read test://static-text", func(ctx context.Context, c *client.Client, _ io.Writer) (string, error) {
		r, err := c.ReadResource(ctx, "test://static-text")
		if err != nil || len(r.Contents) == 0 {
			return "no contents", err
		}
		return fmt.Sprintf("%q", r.Contents[0].Text), nil
	}},
	{"prompts/get test_prompt_with_arguments", func(ctx context.Context, c *client.Client, _ io.Writer) (string, error) {
		r, err := c.GetPrompt(ctx, "test_prompt_with_arguments", map[string]string{"arg1": "hello", "arg2": "world"})
		if err != nil || len(r.Messages) == 0 || r.Messages[0].Content.Text == nil {
			return "no messages", err
		}
		return fmt.Sprintf("%q", *r.Messages[0].Content.Text), nil
	}},
	{`tools/call test_sampling: the server asks the client's model (sampling/createMessage)`,
		callText("test_sampling", map[string]any{"prompt": "Say hello"})},
}

var modernSteps = []demoStep{
	{`tools/call echo {"text":"stateless hello"}`, callText("echo", map[string]any{"text": "stateless hello"})},
	{`tools/call test_elicitation: input_required, answered and retried`,
		callText("test_elicitation", map[string]any{"message": "Who is calling?"})},
}

// callText calls a tool and shows its text, printing its progress.
func callText(name string, args map[string]any) func(context.Context, *client.Client, io.Writer) (string, error) {
	return func(ctx context.Context, c *client.Client, out io.Writer) (string, error) {
		r, err := c.CallTool(ctx, name, args, client.WithProgress(func(p spec.ProgressParams) {
			fmt.Fprintf(out, "  … progress %v%s\n", p.Progress, totalOf(p.Total))
		}))
		if err != nil {
			return "", err
		}
		parts := make([]string, 0, len(r.Content))
		for _, b := range r.Content {
			if b.Text != nil {
				parts = append(parts, fmt.Sprintf("%q", *b.Text))
			}
		}
		if r.IsError {
			return "", fmt.Errorf("tool error: %s", strings.Join(parts, " "))
		}
		return strings.Join(parts, " "), nil
	}
}

// demoHandlers answer the server's questions as a host application would
// ask its model and its user.
func demoHandlers(out io.Writer) *client.Options {
	return &client.Options{
		Sampling: func(_ context.Context, p *spec.CreateMessageParams) (*spec.CreateMessageResult, error) {
			fmt.Fprintf(out, "  … the server asks for a completion (maxTokens %d); the demo's model answers\n", p.MaxTokens)
			return &spec.CreateMessageResult{Role: "assistant", Model: "demo-model",
				Content: json.RawMessage(`{"type":"text","text":"Hello from the client's model"}`)}, nil
		},
		Elicitation: func(_ context.Context, p *spec.ElicitParams) (*spec.ElicitResult, error) {
			fmt.Fprintf(out, "  … the server asks the user: %q; the demo's user answers\n", p.Message)
			return &spec.ElicitResult{Action: "accept", Content: map[string]any{"username": "demo", "email": "demo@example.com"}}, nil
		},
		Roots: func(context.Context) ([]spec.Root, error) {
			wd, err := os.Getwd()
			return []spec.Root{{URI: "file://" + wd, Name: "working directory"}}, err
		},
	}
}

// demoSession connects, runs steps and closes, showing each exchange.
func demoSession(ctx context.Context, t target, out io.Writer, steps []demoStep) error {
	asked := "negotiated"
	if t.revision != "" {
		asked = "pinned to " + t.revision
	}
	fmt.Fprintf(out, "→ connect (%s)\n", asked)
	var conn transport.ClientConn
	var c *client.Client
	var err error
	if t.url != "" {
		c, err = t.connect(ctx, demoHandlers(out))
	} else if conn, err = t.dial(ctx); err == nil {
		c, err = t.negotiate(ctx, conn, demoHandlers(out))
	}
	if err != nil {
		return err
	}
	info := c.ServerInfo()
	fmt.Fprintf(out, "← %s %s speaks %s\n", info.Name, info.Version, c.Revision())
	for _, st := range steps {
		fmt.Fprintf(out, "→ %s\n", st.title)
		shown, err := st.run(ctx, c, out)
		if err != nil {
			c.Close()
			return fmt.Errorf("%s: %w", st.title, err)
		}
		fmt.Fprintf(out, "← %s\n", shown)
	}
	return closeDemo(c, conn, out)
}

// closeDemo closes the client; a stdio server (conn) must then exit with
// status 0.
func closeDemo(c *client.Client, conn transport.ClientConn, out io.Writer) error {
	if err := c.Close(); err != nil {
		return err
	}
	sc, ok := conn.(*stdio.ClientConn)
	if !ok {
		fmt.Fprintln(out, "closed")
		return nil
	}
	code, err := sc.Process().Wait()
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
