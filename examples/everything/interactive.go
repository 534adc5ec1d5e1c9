package everything

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/polymcp/polymcp/mcp"
)

// The interactive tools ask the client for input through req.Elicit,
// req.Sample, req.Roots and req.Input. The same handler serves every
// revision: on 2025-11-25 and earlier the core sends server-to-client
// requests during the call; on 2026-07-28 it answers input_required and
// the handler runs again on the client's retry, getting the answers.

// Texts of the interactive tools (the conformance scenarios' own).
const (
	askNameMessage    = "What is your name?"
	askColorMessage   = "What is your favorite color?"
	askConfirmMessage = "Please confirm to continue"
	askContextMessage = "What context should the prompt use?"
	capitalQuestion   = "What is the capital of France?"
	greetingRequest   = "Generate a greeting"
	// confirmState is what test_input_required_result_request_state keeps
	// between its rounds; seeing it again proves the state round-tripped.
	confirmState = "awaiting-confirmation"
)

func addInteractiveTools(s *mcp.Server) {
	addLegacyInteractive(s)
	addInputRequiredTools(s)
	addDiagnosticInputTools(s)
	must(s.AddPrompt(mcp.Prompt{Name: "test_input_required_result_prompt", Title: "Prompt Asking For Input",
		Description: "A prompt that asks the user for context before it renders"},
		func(ctx context.Context, req *mcp.Request, _ map[string]string) (*mcp.GetPromptResult, error) {
			res, err := req.Elicit(ctx, "user_context", stringForm(askContextMessage, "context"))
			if err != nil {
				return nil, err
			}
			return user(mcp.TextContent("Use this context: " + field(res, "context"))), nil
		}))
}

// stringForm elicits one required string property.
func stringForm(message, property string) *mcp.ElicitParams {
	return &mcp.ElicitParams{Message: message, RequestedSchema: json.RawMessage(
		`{"type":"object","properties":{"` + property + `":{"type":"string"}},"required":["` + property + `"]}`)}
}

// field returns an accepted elicitation's property as text.
func field(res *mcp.ElicitResult, name string) string {
	if res.Action != "accept" {
		return "(" + res.Action + ")"
	}
	v, ok := res.Content[name]
	if !ok {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// outcome renders an elicitation's action and content.
func outcome(res *mcp.ElicitResult) string {
	content := "{}"
	if res.Content != nil {
		b, err := json.Marshal(res.Content)
		if err == nil {
			content = string(b)
		}
	}
	return fmt.Sprintf("action=%s, content=%s", res.Action, content)
}

// SamplingInput and ElicitationInput are the arguments of test_sampling and
// test_elicitation.
type (
	SamplingInput struct {
		Prompt string `json:"prompt" jsonschema:"the prompt to send to the client's model"`
	}
	ElicitationInput struct {
		Message string `json:"message" jsonschema:"the message to show the user"`
	}
)

// toolFailure answers a failed input step: input_required, a missing
// capability on 2026-07-28 (-32021) and cancellation go back to the core;
// anything else (a missing capability on the legacy revisions, a client
// error) becomes an isError result.
func toolFailure(err error) (*mcp.CallToolResult, error) {
	var rpc *mcp.MissingCapabilityError
	if mcp.IsInputRequired(err) || (errors.As(err, &rpc) && rpc.Modern) || errors.Is(err, context.Canceled) ||
		errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	return mcp.ErrorResult(err.Error()), nil
}

func addLegacyInteractive(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "test_sampling", Description: "Tests server-initiated sampling (LLM completion request)"},
		func(ctx context.Context, req *mcp.Request, in SamplingInput) (*mcp.CallToolResult, error) {
			res, err := req.Sample(ctx, "sampling", &mcp.CreateMessageParams{
				Messages: []mcp.SamplingMessage{mcp.TextMessage("user", in.Prompt)}, MaxTokens: 100})
			if err != nil {
				return toolFailure(err)
			}
			return text("LLM response: " + res.Text()), nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "test_elicitation", Description: "Tests server-initiated elicitation (user input request)"},
		func(ctx context.Context, req *mcp.Request, in ElicitationInput) (*mcp.CallToolResult, error) {
			res, err := req.Elicit(ctx, "elicitation", &mcp.ElicitParams{Message: in.Message, RequestedSchema: json.RawMessage(
				`{"type":"object","properties":{"username":{"type":"string","description":"User's response"},` +
					`"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}`)})
			if err != nil {
				return toolFailure(err)
			}
			return text("User response: " + outcome(res)), nil
		})
	fixed(s, "test_elicitation_sep1034_defaults", "Tests elicitation with default values per SEP-1034", func(ctx context.Context, req *mcp.Request) (*mcp.CallToolResult, error) {
		res, err := req.Elicit(ctx, "defaults", &mcp.ElicitParams{Message: "Please review and update the form fields with defaults",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{` +
				`"name":{"type":"string","description":"User name","default":"John Doe"},` +
				`"age":{"type":"integer","description":"User age","default":30},` +
				`"score":{"type":"number","description":"User score","default":95.5},` +
				`"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},` +
				`"verified":{"type":"boolean","description":"Verification status","default":true}},` +
				`"required":[]}`)})
		if err != nil {
			return toolFailure(err)
		}
		return text("Elicitation completed: " + outcome(res)), nil
	})
	fixed(s, "test_elicitation_sep1330_enums", "Tests elicitation with enum schema improvements per SEP-1330", func(ctx context.Context, req *mcp.Request) (*mcp.CallToolResult, error) {
		res, err := req.Elicit(ctx, "enums", &mcp.ElicitParams{Message: "Please select options from the enum fields",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{` +
				`"untitledSingle":{"type":"string","description":"Select one option","enum":["option1","option2","option3"]},` +
				`"titledSingle":{"type":"string","description":"Select one option with titles","oneOf":[` +
				`{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},` +
				`"legacyEnum":{"type":"string","description":"Select one option (legacy)","enum":["opt1","opt2","opt3"],` +
				`"enumNames":["Option One","Option Two","Option Three"]},` +
				`"untitledMulti":{"type":"array","description":"Select multiple options","minItems":1,"maxItems":3,` +
				`"items":{"type":"string","enum":["option1","option2","option3"]}},` +
				`"titledMulti":{"type":"array","description":"Select multiple options with titles","minItems":1,"maxItems":3,` +
				`"items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}},` +
				`"required":[]}`)})
		if err != nil {
			return toolFailure(err)
		}
		return text("Elicitation completed: " + outcome(res)), nil
	})
}

func addInputRequiredTools(s *mcp.Server) {
	fixed(s, "test_input_required_result_elicitation", "Asks for the user's name (elicitation), then greets them", func(ctx context.Context, req *mcp.Request) (*mcp.CallToolResult, error) {
		res, err := req.Elicit(ctx, "user_name", stringForm(askNameMessage, "name"))
		if err != nil {
			return toolFailure(err)
		}
		return text("Hello, " + field(res, "name") + "!"), nil
	})
	fixed(s, "test_input_required_result_sampling", "Asks the client's model a question (sampling), then returns its answer", func(ctx context.Context, req *mcp.Request) (*mcp.CallToolResult, error) {
		res, err := req.Sample(ctx, "capital_question", &mcp.CreateMessageParams{
			Messages: []mcp.SamplingMessage{mcp.TextMessage("user", capitalQuestion)}, MaxTokens: 100})
		if err != nil {
			return toolFailure(err)
		}
		return text("Sampled answer: " + res.Text()), nil
	})
	fixed(s, "test_input_required_result_list_roots", "Asks the client for its roots, then lists them", func(ctx context.Context, req *mcp.Request) (*mcp.CallToolResult, error) {
		res, err := req.Roots(ctx, "client_roots")
		if err != nil {
			return toolFailure(err)
		}
		return text("Client roots: " + rootList(res)), nil
	})
	confirm := func(ctx context.Context, req *mcp.Request) (*mcp.CallToolResult, error) {
		kept := string(req.InputState())
		req.SetInputState([]byte(confirmState))
		res, err := req.Elicit(ctx, "confirm", &mcp.ElicitParams{Message: askConfirmMessage, RequestedSchema: json.RawMessage(
			`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)})
		if err != nil {
			return toolFailure(err)
		}
		// On 2026-07-28 this is the retry: the state must have come back in
		// requestState. Earlier revisions answer within one run.
		state := "state-missing"
		if kept == confirmState || req.Revision < "2026-07-28" && string(req.InputState()) == confirmState {
			state = "state-ok"
		}
		return text(fmt.Sprintf("%s: confirmed=%s", state, field(res, "ok"))), nil
	}
	fixed(s, "test_input_required_result_request_state", "Asks for a confirmation and keeps state between the rounds (requestState)", confirm)
	fixed(s, "test_input_required_result_tampered_state", "Like the request-state tool; a requestState changed by the client is refused", confirm)
	fixed(s, "test_input_required_result_multiple_inputs", "Asks for a name, a greeting and the roots in one round", func(ctx context.Context, req *mcp.Request) (*mcp.CallToolResult, error) {
		got, err := req.Input(ctx, map[string]mcp.InputRequest{
			"user_name": mcp.Elicitation(stringForm(askNameMessage, "name")),
			"greeting": mcp.Sampling(&mcp.CreateMessageParams{
				Messages: []mcp.SamplingMessage{mcp.TextMessage("user", greetingRequest)}, MaxTokens: 50}),
			"client_roots": mcp.ListRoots(),
		})
		if err != nil {
			return toolFailure(err)
		}
		var name mcp.ElicitResult
		var greeting mcp.CreateMessageResult
		var roots mcp.ListRootsResult
		if json.Unmarshal(got["user_name"], &name) != nil || json.Unmarshal(got["greeting"], &greeting) != nil ||
			json.Unmarshal(got["client_roots"], &roots) != nil {
			return mcp.ErrorResult("the client's answers are malformed"), nil
		}
		return text(fmt.Sprintf("Name: %s; greeting: %s; roots: %s", field(&name, "name"), greeting.Text(), rootList(&roots))), nil
	})
	fixed(s, "test_input_required_result_multi_round", "Asks for a name, then for a favorite color, over two rounds", func(ctx context.Context, req *mcp.Request) (*mcp.CallToolResult, error) {
		name, err := req.Elicit(ctx, "user_name", stringForm(askNameMessage, "name"))
		if err != nil {
			return toolFailure(err)
		}
		color, err := req.Elicit(ctx, "favorite_color", stringForm(askColorMessage, "color"))
		if err != nil {
			return toolFailure(err)
		}
		return text(fmt.Sprintf("%s likes %s", field(name, "name"), field(color, "color"))), nil
	})
	fixed(s, "test_input_required_result_capabilities", "Asks only for the input kinds the client declared (elicitation, sampling, roots)", func(ctx context.Context, req *mcp.Request) (*mcp.CallToolResult, error) {
		want := map[string]mcp.InputRequest{}
		if req.Declared("elicitation/create") {
			want["user_name"] = mcp.Elicitation(stringForm(askNameMessage, "name"))
		}
		if req.Declared("sampling/createMessage") {
			want["capital_question"] = mcp.Sampling(&mcp.CreateMessageParams{
				Messages: []mcp.SamplingMessage{mcp.TextMessage("user", capitalQuestion)}, MaxTokens: 100})
		}
		if req.Declared("roots/list") {
			want["client_roots"] = mcp.ListRoots()
		}
		if len(want) == 0 {
			return text("The client declared no input capability"), nil
		}
		got, err := req.Input(ctx, want)
		if err != nil {
			return toolFailure(err)
		}
		return text("Received input for: " + strings.Join(slices.Sorted(maps.Keys(got)), ", ")), nil
	})
}

func addDiagnosticInputTools(s *mcp.Server) {
	fixed(s, "test_missing_capability", "Needs sampling: a client that did not declare it gets -32021 (2026-07-28) or an error result", func(ctx context.Context, req *mcp.Request) (*mcp.CallToolResult, error) {
		res, err := req.Sample(ctx, "sampling", &mcp.CreateMessageParams{
			Messages: []mcp.SamplingMessage{mcp.TextMessage("user", "Say hello")}, MaxTokens: 20})
		if err != nil {
			return toolFailure(err)
		}
		return text("LLM response: " + res.Text()), nil
	})
	fixed(s, "test_streaming_elicitation", "Logs a message, then asks for the user's name; the answer stream never carries a request", func(ctx context.Context, req *mcp.Request) (*mcp.CallToolResult, error) {
		_ = req.Log(mcp.LoggingLevel("info"), Name, "asking for the user's name")
		res, err := req.Elicit(ctx, "user_name", stringForm(askNameMessage, "name"))
		if err != nil {
			return toolFailure(err)
		}
		return text("Hello, " + field(res, "name") + "!"), nil
	})
}

func rootList(res *mcp.ListRootsResult) string {
	if len(res.Roots) == 0 {
		return "(none)"
	}
	parts := make([]string, len(res.Roots))
	for i, r := range res.Roots {
		parts[i] = r.URI
		if r.Name != "" {
			parts[i] += " (" + r.Name + ")"
		}
	}
	return strings.Join(parts, ", ")
}
