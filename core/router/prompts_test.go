package router

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

func TestAddPromptRejects(t *testing.T) {
	tests := []struct {
		name   string
		prompt spec.Prompt
		nilH   bool
		want   string
	}{
		{"no name", spec.Prompt{}, false, "name is required"},
		{"nil handler", spec.Prompt{Name: "p"}, true, "nil handler"},
		{"empty argument name", spec.Prompt{Name: "p", Arguments: []spec.PromptArgument{{}}}, false, "empty or repeated"},
		{"repeated argument", spec.Prompt{Name: "p", Arguments: []spec.PromptArgument{{Name: "a"}, {Name: "a"}}}, false, "empty or repeated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ch := newRecorded(Options{})
			var h PromptHandler = okPrompt
			if tt.nilH {
				h = nil
			}
			err := r.AddPrompt(tt.prompt, h)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Empty(t, ch.take())
		})
	}
}

func TestGetPrompt(t *testing.T) {
	rpcErr := jsonrpc.Errorf(jsonrpc.KindExecution, jsonrpc.CodeInvalidParams, "bad language")
	tests := []struct {
		name     string
		args     map[string]string
		res      *spec.GetPromptResult
		err      error
		wantArgs map[string]string
		wantCode int64
		wantMsg  string
	}{
		{"required given", map[string]string{"code": "x"}, nil, nil, map[string]string{"code": "x"}, 0, ""},
		{"optional given", map[string]string{"code": "x", "lang": "go"}, nil, nil, map[string]string{"code": "x", "lang": "go"}, 0, ""},
		{"undeclared passed through", map[string]string{"code": "x", "extra": "1"}, nil, nil, map[string]string{"code": "x", "extra": "1"}, 0, ""},
		{"required missing", map[string]string{"lang": "go"}, nil, nil, nil, jsonrpc.CodeInvalidParams, `missing required argument "code" for prompt "review"`},
		{"no arguments", nil, nil, nil, nil, jsonrpc.CodeInvalidParams, `missing required argument "code"`},
		{"handler error", map[string]string{"code": "x"}, nil, errors.New("template broke"), nil, jsonrpc.CodeInternalError, "template broke"},
		{"handler jsonrpc error", map[string]string{"code": "x"}, nil, rpcErr, nil, jsonrpc.CodeInvalidParams, "bad language"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(Options{})
			var seen map[string]string
			called := false
			require.NoError(t, r.AddPrompt(spec.Prompt{Name: "review", Arguments: []spec.PromptArgument{
				{Name: "code", Required: true}, {Name: "lang"},
			}}, func(_ context.Context, _ *Request, args map[string]string) (*spec.GetPromptResult, error) {
				called, seen = true, args
				return tt.res, tt.err
			}))
			res, err := r.GetPrompt(context.Background(), &Request{}, &spec.GetPromptParams{Name: "review", Arguments: tt.args})
			if tt.wantCode != 0 {
				requireRPC(t, err, tt.wantCode, tt.wantMsg)
				assert.Nil(t, res)
				if tt.wantCode == jsonrpc.CodeInvalidParams && tt.err == nil {
					assert.False(t, called, "the handler must not run")
				}
				return
			}
			require.Nil(t, err)
			assert.Equal(t, tt.wantArgs, seen)
			require.NotNil(t, res.Messages, "messages is [] rather than null")
		})
	}
}

func TestGetPromptUnknownAndLists(t *testing.T) {
	r, ch := newRecorded(Options{})
	_, err := r.GetPrompt(context.Background(), nil, &spec.GetPromptParams{Name: "nope"})
	requireRPC(t, err, jsonrpc.CodeInvalidParams, "unknown prompt: nope")

	require.NoError(t, r.AddPrompt(spec.Prompt{Name: "b"}, okPrompt))
	require.NoError(t, r.AddPrompt(spec.Prompt{Name: "a"}, okPrompt))
	require.NoError(t, r.AddPrompt(spec.Prompt{Name: "b", Description: "v2"}, okPrompt))
	assert.Equal(t, []List{ListPrompts, ListPrompts, ListPrompts}, ch.take())

	list, err := r.ListPrompts(nil)
	require.Nil(t, err)
	require.Len(t, list.Prompts, 2)
	assert.Equal(t, "b", list.Prompts[0].Name, "registration order, not sorted")
	assert.Equal(t, "v2", list.Prompts[0].Description)

	res, err := r.GetPrompt(context.Background(), nil, &spec.GetPromptParams{Name: "a"})
	require.Nil(t, err)
	assert.Len(t, res.Messages, 1)

	assert.Equal(t, 1, r.RemovePrompts("a", "zzz"))
	assert.Equal(t, []List{ListPrompts}, ch.take())
	_, err = r.GetPrompt(context.Background(), nil, &spec.GetPromptParams{Name: "a"})
	requireRPC(t, err, jsonrpc.CodeInvalidParams, "unknown prompt")
	_, _, prompts, _ := r.Capabilities()
	assert.True(t, prompts)
}
