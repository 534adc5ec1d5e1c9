// Package everything is polymcp's reference server: every tool, resource,
// template and prompt the official conformance runner's server scenarios
// name, with exactly their names and texts, plus the tools echo and sleep
// that the tests and benchmarks use. cmd/polymcp serves it
// ("polymcp everything"); the Python and Node bindings ship the same server.
package everything

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/polymcp/polymcp/mcp"
)

// Name and Version identify the server in initialize and server/discover.
const (
	Name    = "polymcp-everything"
	Version = mcp.Version
)

// Payloads the conformance scenarios check: a 1×1 PNG and a minimal WAV.
const (
	PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

// New returns the everything server. opts may be nil.
func New(opts *mcp.ServerOptions) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Version: Version, Title: "polymcp everything"}, opts)
	addTools(s)
	addResources(s)
	addPrompts(s)
	addInteractiveTools(s) // after the older catalogue, which keeps its order
	addTaskTools(s)
	return s
}

// noArgs is the inputSchema of a tool without arguments.
var noArgs = json.RawMessage(`{"type":"object","properties":{}}`)

// fixed registers a tool without arguments whose handler ignores them.
func fixed(s *mcp.Server, name, description string, h func(context.Context, *mcp.Request) (*mcp.CallToolResult, error)) {
	must(s.AddTool(mcp.Tool{Name: name, Description: description, InputSchema: noArgs},
		func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
			return h(ctx, req)
		}))
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(s)}}
}

func addTools(s *mcp.Server) {
	addEchoSleep(s)
	addContentTools(s)
	addNotifyingTools(s)
	addCatalogueTools(s)
	must(s.AddTool(mcp.Tool{Name: "json_schema_2020_12_tool",
		Description: "Takes input described by a JSON Schema 2020-12 document that must come back unchanged",
		InputSchema: json.RawMessage(schema2020)},
		func(_ context.Context, _ *mcp.Request, args json.RawMessage) (*mcp.CallToolResult, error) {
			return text("Received: " + string(args)), nil
		}))
	must(s.AddTool(mcp.Tool{Name: "test_custom_header",
		Description: "Returns its region argument, which HTTP clients also send as the Mcp-Param-Region header (x-mcp-header)",
		InputSchema: json.RawMessage(customHeaderSchema)},
		func(_ context.Context, _ *mcp.Request, args json.RawMessage) (*mcp.CallToolResult, error) {
			var in struct {
				Region string `json:"region"`
			}
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			return text("Region: " + in.Region), nil
		}))
}

// customHeaderSchema puts the region argument in an Mcp-Param-Region
// header too; the HTTP transport refuses a request whose header and body
// disagree (-32020).
const customHeaderSchema = `{"type":"object","properties":{"region":{"type":"string","description":"a region name","x-mcp-header":"Region"}},"required":["region"]}`

// schema2020 exercises the 2020-12 keywords a server must pass through
// untouched: $schema, $defs with an $anchor, allOf holding an anyOf,
// if/then/else and additionalProperties (the conformance runner's
// json-schema-2020-12 document).
const schema2020 = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
	`"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},` +
	`"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},` +
	`"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],` +
	`"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},` +
	`"additionalProperties":false}`

// EchoInput and SleepInput are the arguments of echo and sleep.
type (
	EchoInput struct {
		Text string `json:"text" jsonschema:"the text to return"`
	}
	SleepInput struct {
		Ms int64 `json:"ms" jsonschema:"how long to sleep, in milliseconds"`
	}
)

// progressSteps is how many progress updates sleep sends when asked.
const progressSteps = 10

func addEchoSleep(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns its text argument as one text item"},
		func(_ context.Context, _ *mcp.Request, in EchoInput) (string, error) { return in.Text, nil })
	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Description: "Waits ms milliseconds, reporting progress when asked, then returns \"slept\""},
		func(ctx context.Context, req *mcp.Request, in SleepInput) (string, error) {
			if in.Ms < 0 {
				return "", fmt.Errorf("ms must not be negative")
			}
			total := float64(in.Ms)
			step := time.Duration(in.Ms) * time.Millisecond / progressSteps
			t := time.NewTimer(step)
			defer t.Stop()
			for i := 1; i <= progressSteps; i++ {
				select {
				case <-ctx.Done():
					return "", ctx.Err()
				case <-t.C:
				}
				_ = req.Progress(total*float64(i)/progressSteps, &total, "")
				t.Reset(step)
			}
			return "slept", nil
		})
}

func addContentTools(s *mcp.Server) {
	fixed(s, "test_simple_text", "Tests simple text content response", func(context.Context, *mcp.Request) (*mcp.CallToolResult, error) {
		return text("This is a simple text response for testing."), nil
	})
	fixed(s, "test_image_content", "Tests image content response", func(context.Context, *mcp.Request) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.ImageContent(PNG, "image/png")}}, nil
	})
	fixed(s, "test_audio_content", "Tests audio content response", func(context.Context, *mcp.Request) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.AudioContent(WAV, "audio/wav")}}, nil
	})
	fixed(s, "test_embedded_resource", "Tests embedded resource content response", func(context.Context, *mcp.Request) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.EmbeddedResource(
			mcp.TextResource("test://embedded-resource", "text/plain", "This is an embedded resource content."))}}, nil
	})
	fixed(s, "test_multiple_content_types", "Tests response with multiple content types (text, image, resource)", func(context.Context, *mcp.Request) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			mcp.TextContent("Multiple content types test:"),
			mcp.ImageContent(PNG, "image/png"),
			mcp.EmbeddedResource(mcp.TextResource("test://mixed-content-resource", "application/json", `{"test":"data","value":123}`)),
		}}, nil
	})
	fixed(s, "test_error_handling", "Tests error response handling", func(context.Context, *mcp.Request) (*mcp.CallToolResult, error) {
		return mcp.ErrorResult("This tool intentionally returns an error for testing"), nil
	})
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// steps sends one notification per message, 50 ms apart, then returns done.
func steps(ctx context.Context, send func(i int) error, n int, done string) (*mcp.CallToolResult, error) {
	for i := range n {
		if i > 0 {
			if err := pause(ctx, 50*time.Millisecond); err != nil {
				return nil, err
			}
		}
		if err := send(i); err != nil {
			return nil, err
		}
	}
	return text(done), nil
}

func addNotifyingTools(s *mcp.Server) {
	logLines := []string{"Tool execution started", "Tool processing data", "Tool execution completed"}
	logStep := func(req *mcp.Request) func(int) error {
		return func(i int) error { return req.Log(mcp.LoggingLevel("info"), Name, logLines[i]) }
	}
	fixed(s, "test_tool_with_logging", "Tests tool that emits log messages during execution", func(ctx context.Context, req *mcp.Request) (*mcp.CallToolResult, error) {
		return steps(ctx, logStep(req), len(logLines), "Tool with logging executed successfully")
	})
	fixed(s, "test_logging_tool", "Sends log messages at the level the request's _meta asks for", func(ctx context.Context, req *mcp.Request) (*mcp.CallToolResult, error) {
		return steps(ctx, logStep(req), len(logLines), "Logging tool completed")
	})
	fixed(s, "test_tool_with_progress", "Tests tool that reports progress notifications", func(ctx context.Context, req *mcp.Request) (*mcp.CallToolResult, error) {
		total := 100.0
		return steps(ctx, func(i int) error {
			p := float64(i * 50)
			return req.Progress(p, &total, fmt.Sprintf("Completed step %d of %d", int(p), 100))
		}, 3, "Progress tool completed")
	})
	fixed(s, "test_reconnection", "Tests SSE stream disconnection and client reconnection (SEP-1699)", func(ctx context.Context, _ *mcp.Request) (*mcp.CallToolResult, error) {
		if err := pause(ctx, 100*time.Millisecond); err != nil {
			return nil, err
		}
		return text("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure."), nil
	})
}

// maxDynamic bounds the tools and prompts the trigger tools add: past it
// each call replaces the oldest, so a busy client cannot grow the catalogue.
const maxDynamic = 16

// addCatalogueTools adds the tools that change the catalogue, so clients
// see notifications/tools/list_changed and prompts/list_changed.
func addCatalogueTools(s *mcp.Server) {
	var tools, prompts atomic.Int64
	fixed(s, "test_trigger_tool_change", "Adds a tool, which sends notifications/tools/list_changed", func(context.Context, *mcp.Request) (*mcp.CallToolResult, error) {
		n := tools.Add(1)
		s.RemoveTools(fmt.Sprintf("test_dynamic_tool_%d", n-maxDynamic))
		name := fmt.Sprintf("test_dynamic_tool_%d", n)
		fixed(s, name, "A tool added at run time", func(context.Context, *mcp.Request) (*mcp.CallToolResult, error) {
			return text("dynamic tool " + name), nil
		})
		return text("Added tool " + name), nil
	})
	fixed(s, "test_trigger_prompt_change", "Adds a prompt, which sends notifications/prompts/list_changed", func(context.Context, *mcp.Request) (*mcp.CallToolResult, error) {
		n := prompts.Add(1)
		s.RemovePrompts(fmt.Sprintf("test_dynamic_prompt_%d", n-maxDynamic))
		name := fmt.Sprintf("test_dynamic_prompt_%d", n)
		addUserPrompt(s, mcp.Prompt{Name: name, Description: "A prompt added at run time"}, "dynamic prompt "+name)
		return text("Added prompt " + name), nil
	})
}

func addResources(s *mcp.Server) {
	static := func(r mcp.Resource, c mcp.ResourceContents) {
		must(s.AddResource(r, func(context.Context, *mcp.Request, string, map[string]string) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{c}}, nil
		}))
	}
	static(mcp.Resource{URI: "test://static-text", Name: "static-text", Title: "Static Text Resource",
		Description: "A static text resource for testing", MimeType: "text/plain"},
		mcp.TextResource("test://static-text", "text/plain", "This is the content of the static text resource."))
	static(mcp.Resource{URI: "test://static-binary", Name: "static-binary", Title: "Static Binary Resource",
		Description: "A static binary resource (image) for testing", MimeType: "image/png"},
		mcp.BlobResource("test://static-binary", "image/png", PNG))
	static(mcp.Resource{URI: "test://watched-resource", Name: "watched-resource", Title: "Watched Resource",
		Description: "A resource clients can subscribe to", MimeType: "text/plain"},
		mcp.TextResource("test://watched-resource", "text/plain", "Watched resource content"))
	must(s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template",
		Title: "Resource Template", Description: "A resource template with parameter substitution", MimeType: "application/json"},
		func(_ context.Context, _ *mcp.Request, uri string, vars map[string]string) (*mcp.ReadResourceResult, error) {
			body, err := json.Marshal(struct {
				ID           string `json:"id"`
				TemplateTest bool   `json:"templateTest"`
				Data         string `json:"data"`
			}{vars["id"], true, "Data for ID: " + vars["id"]})
			if err != nil {
				return nil, err
			}
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{mcp.TextResource(uri, "application/json", string(body))}}, nil
		}))
}

func addPrompts(s *mcp.Server) {
	addUserPrompt(s, mcp.Prompt{Name: "test_simple_prompt", Title: "Simple Test Prompt",
		Description: "A simple prompt without arguments"}, "This is a simple prompt for testing.")
	must(s.AddPrompt(mcp.Prompt{Name: "test_prompt_with_arguments", Title: "Prompt With Arguments",
		Description: "A prompt with required arguments", Arguments: []mcp.PromptArgument{
			{Name: "arg1", Description: "First test argument", Required: true},
			{Name: "arg2", Description: "Second test argument", Required: true}}},
		func(_ context.Context, _ *mcp.Request, args map[string]string) (*mcp.GetPromptResult, error) {
			return user(mcp.TextContent(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", args["arg1"], args["arg2"]))), nil
		}))
	must(s.SetCompleter(mcp.CompleteRef{Type: "ref/prompt", Name: "test_prompt_with_arguments"},
		func(_ context.Context, _ *mcp.Request, p *mcp.CompleteParams) (*mcp.Completion, error) {
			values := []string{}
			for _, v := range []string{"paris", "park", "party", "hello", "world"} {
				if strings.HasPrefix(v, p.Argument.Value) {
					values = append(values, v)
				}
			}
			return &mcp.Completion{Values: values}, nil
		}))
	must(s.AddPrompt(mcp.Prompt{Name: "test_prompt_with_embedded_resource", Title: "Prompt With Embedded Resource",
		Description: "A prompt that includes an embedded resource", Arguments: []mcp.PromptArgument{
			{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}}},
		func(_ context.Context, _ *mcp.Request, args map[string]string) (*mcp.GetPromptResult, error) {
			return user(mcp.EmbeddedResource(mcp.TextResource(args["resourceUri"], "text/plain", "Embedded resource content for testing.")),
				mcp.TextContent("Please process the embedded resource above.")), nil
		}))
	must(s.AddPrompt(mcp.Prompt{Name: "test_prompt_with_image", Title: "Prompt With Image",
		Description: "A prompt that includes image content"},
		func(context.Context, *mcp.Request, map[string]string) (*mcp.GetPromptResult, error) {
			return user(mcp.ImageContent(PNG, "image/png"), mcp.TextContent("Please analyze the image above.")), nil
		}))
}

// addUserPrompt registers a prompt answering one fixed user message.
func addUserPrompt(s *mcp.Server, p mcp.Prompt, msg string) {
	must(s.AddPrompt(p, func(context.Context, *mcp.Request, map[string]string) (*mcp.GetPromptResult, error) {
		return user(mcp.TextContent(msg)), nil
	}))
}

// user returns a prompt result of user messages, one per content item.
func user(items ...mcp.Content) *mcp.GetPromptResult {
	msgs := make([]mcp.PromptMessage, len(items))
	for i, c := range items {
		msgs[i] = mcp.PromptMessage{Role: "user", Content: c}
	}
	return &mcp.GetPromptResult{Messages: msgs}
}

// must panics on a registration error: the catalogue is fixed, so an error
// is a bug in this file.
func must(err error) {
	if err != nil {
		panic(err)
	}
}
