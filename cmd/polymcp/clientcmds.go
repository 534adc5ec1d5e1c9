package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/polymcp/polymcp/client"
	"github.com/polymcp/polymcp/core/spec"
)

// list prints what a server offers: its tools, resources, resource
// templates and prompts, each catalogue the server has.
func list(ctx context.Context, args []string, out io.Writer) error {
	var t target
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	t.flags(fs)
	asJSON := fs.Bool("json", false, "print the catalogues as JSON")
	rest, err := t.parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageError("unexpected argument " + rest[0])
	}
	c, err := t.connect(ctx, nil)
	if err != nil {
		return err
	}
	defer t.release()
	defer c.Close()
	cat, err := catalogue(ctx, c)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(out, cat)
	}
	info := c.ServerInfo()
	fmt.Fprintf(out, "%s %s, protocol %s\n", info.Name, info.Version, c.Revision())
	for _, tool := range cat.Tools {
		fmt.Fprintf(out, "tool      %-40s %s\n", tool.Name, oneLine(tool.Description, 80))
	}
	for _, r := range cat.Resources {
		fmt.Fprintf(out, "resource  %-40s %s\n", r.URI, oneLine(r.Name, 80))
	}
	for _, r := range cat.Templates {
		fmt.Fprintf(out, "template  %-40s %s\n", r.URITemplate, oneLine(r.Name, 80))
	}
	for _, p := range cat.Prompts {
		fmt.Fprintf(out, "prompt    %-40s %s\n", p.Name, oneLine(p.Description, 80))
	}
	return nil
}

// catalogueOf is everything a server lists.
type catalogueOf struct {
	Tools     []spec.Tool             `json:"tools,omitempty"`
	Resources []spec.Resource         `json:"resources,omitempty"`
	Templates []spec.ResourceTemplate `json:"resourceTemplates,omitempty"`
	Prompts   []spec.Prompt           `json:"prompts,omitempty"`
}

// catalogue lists each catalogue the server's capabilities announce.
func catalogue(ctx context.Context, c *client.Client) (catalogueOf, error) {
	var cat catalogueOf
	var err error
	caps := c.ServerCapabilities()
	if caps.Tools != nil {
		if cat.Tools, err = c.ListTools(ctx); err != nil {
			return cat, err
		}
	}
	if caps.Resources != nil {
		if cat.Resources, err = c.ListResources(ctx); err != nil {
			return cat, err
		}
		if cat.Templates, err = c.ListResourceTemplates(ctx); err != nil {
			return cat, err
		}
	}
	if caps.Prompts != nil {
		if cat.Prompts, err = c.ListPrompts(ctx); err != nil {
			return cat, err
		}
	}
	return cat, nil
}

// callTool calls one tool and prints its result: the text of its content
// (or the whole result as JSON with --json). A tool's error result exits
// with status 1.
func callTool(ctx context.Context, args []string, out io.Writer) error {
	var t target
	fs := flag.NewFlagSet("call", flag.ContinueOnError)
	t.flags(fs)
	asJSON := fs.Bool("json", false, "print the whole result as JSON")
	rest, err := t.parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) == 0 || len(rest) > 2 {
		return usageError("usage: polymcp call [flags] TOOL ['{JSON arguments}'] (--http URL | -- COMMAND ARGS...)")
	}
	var arguments json.RawMessage
	if len(rest) == 2 {
		arguments = json.RawMessage(rest[1])
		if !json.Valid(arguments) {
			return usageError("the arguments are not JSON: " + rest[1])
		}
	}
	c, err := t.connect(ctx, &client.Options{OnLog: stderrLogger})
	if err != nil {
		return err
	}
	defer t.release()
	defer c.Close()
	var toolArgs any
	if arguments != nil {
		toolArgs = arguments
	}
	r, err := c.CallTool(ctx, rest[0], toolArgs, client.WithProgress(func(p spec.ProgressParams) {
		fmt.Fprintf(out, "… progress %v%s %s\n", p.Progress, totalOf(p.Total), p.Message)
	}))
	if err != nil {
		return err
	}
	if *asJSON {
		err = printJSON(out, r)
	} else {
		printContent(out, r.Content)
		if r.StructuredContent != nil {
			err = printJSON(out, r.StructuredContent)
		}
	}
	if err == nil && r.IsError {
		err = fmt.Errorf("the tool reported an error")
	}
	return err
}

func totalOf(total *float64) string {
	if total == nil {
		return ""
	}
	return fmt.Sprintf("/%v", *total)
}

// printContent prints text blocks as they are and a line for any other.
func printContent(out io.Writer, content []spec.Content) {
	for _, b := range content {
		switch {
		case b.Text != nil:
			fmt.Fprintln(out, *b.Text)
		case b.Resource != nil:
			fmt.Fprintf(out, "[resource %s]\n", b.Resource.URI)
		case b.URI != "":
			fmt.Fprintf(out, "[%s %s]\n", b.Type, b.URI)
		default:
			fmt.Fprintf(out, "[%s %s]\n", b.Type, b.MimeType)
		}
	}
}

// read reads one resource and prints its text contents (or everything as
// JSON with --json).
func read(ctx context.Context, args []string, out io.Writer) error {
	var t target
	fs := flag.NewFlagSet("read", flag.ContinueOnError)
	t.flags(fs)
	asJSON := fs.Bool("json", false, "print the whole result as JSON")
	rest, err := t.parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usageError("usage: polymcp read [flags] URI (--http URL | -- COMMAND ARGS...)")
	}
	c, err := t.connect(ctx, nil)
	if err != nil {
		return err
	}
	defer t.release()
	defer c.Close()
	r, err := c.ReadResource(ctx, rest[0])
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(out, r)
	}
	for _, rc := range r.Contents {
		if rc.Blob != "" {
			fmt.Fprintf(out, "[blob %s, %d base64 bytes]\n", rc.MimeType, len(rc.Blob))
			continue
		}
		fmt.Fprintln(out, rc.Text)
	}
	return nil
}
