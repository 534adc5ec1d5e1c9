package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/polymcp/polymcp/client"
	"github.com/polymcp/polymcp/core/spec"
	"github.com/polymcp/polymcp/examples/everything"
)

// Connect negotiates the revision (2026-07-28 with a server that speaks
// it), and the typed methods do the rest.
func Example() {
	srv := everything.New(nil) // any server: stdio.Start(...).Conn(), streamhttp.Dial(url, nil)
	defer srv.Close()
	ctx := context.Background()

	c, err := client.Connect(ctx, srv.Connect().Conn(), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	r, err := c.CallTool(ctx, "echo", map[string]any{"text": "hello"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.Revision(), *r.Content[0].Text)
	// Output: 2026-07-28 hello
}

// The server's questions go to the handlers of Options, in whichever era
// the connection speaks: here the tool asks the client's model.
func ExampleOptions_sampling() {
	srv := everything.New(nil)
	defer srv.Close()
	ctx := context.Background()

	c, err := client.Connect(ctx, srv.Connect().Conn(), &client.Options{
		Sampling: func(ctx context.Context, p *spec.CreateMessageParams) (*spec.CreateMessageResult, error) {
			return &spec.CreateMessageResult{Role: "assistant", Model: "my-model",
				Content: json.RawMessage(`{"type":"text","text":"Hi!"}`)}, nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	r, err := c.CallTool(ctx, "test_sampling", map[string]any{"prompt": "Say hi"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(*r.Content[0].Text)
	// Output: LLM response: Hi!
}
