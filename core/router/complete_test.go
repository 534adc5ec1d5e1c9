package router

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

var (
	promptRef   = spec.CompleteRef{Type: spec.RefPrompt, Name: "greet"}
	templateRef = spec.CompleteRef{Type: spec.RefResource, URI: "repo://{owner}/{name}"}
)

// completionRouter has one prompt and one template, without completers.
func completionRouter(t *testing.T) *Router {
	t.Helper()
	r := New(Options{})
	require.NoError(t, r.AddPrompt(spec.Prompt{Name: "greet", Arguments: []spec.PromptArgument{{Name: "lang"}}}, okPrompt))
	require.NoError(t, r.AddResourceTemplate(spec.ResourceTemplate{URITemplate: templateRef.URI, Name: "repo"}, okResource("x")))
	return r
}

func values(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprint(i)
	}
	return out
}

func fixed(c *spec.Completion, err error) CompleteHandler {
	return func(context.Context, *Request, *spec.CompleteParams) (*spec.Completion, error) { return c, err }
}

func TestSetCompleter(t *testing.T) {
	r := completionRouter(t)
	tests := []struct {
		name string
		ref  spec.CompleteRef
		want string
	}{
		{"unknown prompt", spec.CompleteRef{Type: spec.RefPrompt, Name: "nope"}, "unknown prompt"},
		{"unknown template", spec.CompleteRef{Type: spec.RefResource, URI: "repo://{x}"}, "unknown resource template"},
		{"bad type", spec.CompleteRef{Type: "ref/tool", Name: "greet"}, "neither"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.ErrorContains(t, r.SetCompleter(tt.ref, fixed(nil, nil)), tt.want)
		})
	}
	_, _, _, completions := r.Capabilities()
	assert.False(t, completions, "failed SetCompleter calls enable nothing")

	require.NoError(t, r.SetCompleter(promptRef, nil))
	_, _, _, completions = r.Capabilities()
	assert.False(t, completions, "clearing a completer enables nothing")
	require.NoError(t, r.SetCompleter(promptRef, fixed(nil, nil)))
	_, _, _, completions = r.Capabilities()
	assert.True(t, completions)
}

func TestComplete(t *testing.T) {
	rpcErr := jsonrpc.Errorf(jsonrpc.KindExecution, -32050, "custom")
	tests := []struct {
		name      string
		ref       spec.CompleteRef
		arg       string
		completer CompleteHandler // nil: none set
		want      spec.Completion
		wantCode  int64
		wantMsg   string
	}{
		{"no completer for a prompt", promptRef, "lang", nil, spec.Completion{Values: []string{}}, 0, ""},
		{"no completer for a template", templateRef, "owner", nil, spec.Completion{Values: []string{}}, 0, ""},
		{"prompt values", promptRef, "lang", fixed(&spec.Completion{Values: []string{"go", "rust"}}, nil),
			spec.Completion{Values: []string{"go", "rust"}}, 0, ""},
		{"template values", templateRef, "name", fixed(&spec.Completion{Values: []string{"polymcp"}, Total: ptr(1)}, nil),
			spec.Completion{Values: []string{"polymcp"}, Total: ptr(1)}, 0, ""},
		{"nil completion", promptRef, "lang", fixed(nil, nil), spec.Completion{Values: []string{}}, 0, ""},
		{"nil values", promptRef, "lang", fixed(&spec.Completion{}, nil), spec.Completion{Values: []string{}}, 0, ""},
		{"exactly the cap", promptRef, "lang", fixed(&spec.Completion{Values: values(100)}, nil),
			spec.Completion{Values: values(100)}, 0, ""},
		{"over the cap", promptRef, "lang", fixed(&spec.Completion{Values: values(250)}, nil),
			spec.Completion{Values: values(100), Total: ptr(250), HasMore: true}, 0, ""},
		{"over the cap, larger total kept", promptRef, "lang", fixed(&spec.Completion{Values: values(101), Total: ptr(5000)}, nil),
			spec.Completion{Values: values(100), Total: ptr(5000), HasMore: true}, 0, ""},
		{"over the cap, smaller total fixed", promptRef, "lang", fixed(&spec.Completion{Values: values(101), Total: ptr(7)}, nil),
			spec.Completion{Values: values(100), Total: ptr(101), HasMore: true}, 0, ""},
		{"unknown prompt", spec.CompleteRef{Type: spec.RefPrompt, Name: "nope"}, "lang", nil, spec.Completion{}, jsonrpc.CodeInvalidParams, "unknown prompt: nope"},
		{"unknown template", spec.CompleteRef{Type: spec.RefResource, URI: "repo://x"}, "owner", nil, spec.Completion{}, jsonrpc.CodeInvalidParams, "unknown resource template"},
		{"unknown reference type", spec.CompleteRef{Type: "ref/tool"}, "x", nil, spec.Completion{}, jsonrpc.CodeInvalidParams, "unknown completion reference type"},
		{"undeclared prompt argument", promptRef, "tone", nil, spec.Completion{}, jsonrpc.CodeInvalidParams, `has no argument "tone"`},
		{"not a template variable", templateRef, "branch", nil, spec.Completion{}, jsonrpc.CodeInvalidParams, `has no variable "branch"`},
		{"handler error", promptRef, "lang", fixed(nil, errors.New("index offline")), spec.Completion{}, jsonrpc.CodeInternalError, "index offline"},
		{"handler jsonrpc error", promptRef, "lang", fixed(nil, rpcErr), spec.Completion{}, -32050, "custom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := completionRouter(t)
			if tt.completer != nil {
				require.NoError(t, r.SetCompleter(tt.ref, tt.completer))
			}
			p := &spec.CompleteParams{Ref: tt.ref, Argument: spec.CompleteArgument{Name: tt.arg, Value: "g"}}
			res, err := r.Complete(context.Background(), &Request{}, p)
			if tt.wantCode != 0 {
				requireRPC(t, err, tt.wantCode, tt.wantMsg)
				return
			}
			require.Nil(t, err)
			assert.Equal(t, tt.want, res.Completion)
		})
	}
}

func TestCompleterFollowsItsItem(t *testing.T) {
	r := completionRouter(t)
	require.NoError(t, r.SetCompleter(promptRef, fixed(&spec.Completion{Values: []string{"go"}}, nil)))
	require.NoError(t, r.SetCompleter(templateRef, fixed(&spec.Completion{Values: []string{"me"}}, nil)))
	complete := func(ref spec.CompleteRef, arg string) []string {
		res, err := r.Complete(context.Background(), nil, &spec.CompleteParams{Ref: ref, Argument: spec.CompleteArgument{Name: arg}})
		require.Nil(t, err)
		return res.Completion.Values
	}

	// Replacing keeps the completer.
	require.NoError(t, r.AddPrompt(spec.Prompt{Name: "greet", Description: "v2", Arguments: []spec.PromptArgument{{Name: "lang"}}}, okPrompt))
	require.NoError(t, r.AddResourceTemplate(spec.ResourceTemplate{URITemplate: templateRef.URI, Name: "repo2"}, okResource("x")))
	assert.Equal(t, []string{"go"}, complete(promptRef, "lang"))
	assert.Equal(t, []string{"me"}, complete(templateRef, "owner"))

	// Removing drops it: a new item of the same name starts without one.
	r.RemovePrompts("greet")
	r.RemoveResourceTemplates(templateRef.URI)
	require.NoError(t, r.AddPrompt(spec.Prompt{Name: "greet", Arguments: []spec.PromptArgument{{Name: "lang"}}}, okPrompt))
	require.NoError(t, r.AddResourceTemplate(spec.ResourceTemplate{URITemplate: templateRef.URI, Name: "repo"}, okResource("x")))
	assert.Empty(t, complete(promptRef, "lang"))
	assert.Empty(t, complete(templateRef, "owner"))
}

func TestSetCompleterIsNoListChange(t *testing.T) {
	r, ch := newRecorded(Options{PageSize: 1})
	require.NoError(t, r.AddPrompt(spec.Prompt{Name: "a", Arguments: []spec.PromptArgument{{Name: "x"}}}, okPrompt))
	require.NoError(t, r.AddPrompt(spec.Prompt{Name: "b"}, okPrompt))
	first, _ := r.ListPrompts(nil)
	ch.take()

	require.NoError(t, r.SetCompleter(spec.CompleteRef{Type: spec.RefPrompt, Name: "a"}, fixed(nil, nil)))
	assert.Empty(t, ch.take())
	_, err := r.ListPrompts(&first.NextCursor)
	assert.Nil(t, err, "cursors survive a new completer")
}
