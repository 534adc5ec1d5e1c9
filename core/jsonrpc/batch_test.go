package jsonrpc

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitBatch(t *testing.T) {
	tests := []struct {
		name, in string
		items    []string
		isBatch  bool
		code     int64
	}{
		{"object", `{"jsonrpc":"2.0"}`, []string{`{"jsonrpc":"2.0"}`}, false, 0},
		{"garbage is left to Decode", ` x`, []string{` x`}, false, 0},
		{"empty input", ``, []string{``}, false, 0},
		{"batch", " [ {\"a\":1} ,2,\n\"x\" ,[]]\n", []string{`{"a":1}`, `2`, `"x"`, `[]`}, true, 0},
		{"one item", `[{}]`, []string{`{}`}, true, 0},
		{"empty batch", `[]`, nil, true, CodeInvalidRequest},
		{"blank empty batch", " [ \n ] ", nil, true, CodeInvalidRequest},
		{"empty batch with garbage", `[] x`, nil, true, CodeParseError},
		{"trailing comma", `[1,]`, nil, true, CodeParseError},
		{"unterminated", `[{}`, nil, true, CodeParseError},
		{"missing comma", `[{} {}]`, nil, true, CodeParseError},
		{"bad element", `[{"a":01}]`, nil, true, CodeParseError},
		{"invalid UTF-8 in element", "[{\"a\":\"\xfe\"}]", nil, true, CodeParseError},
		{"trailing garbage", `[{}] {}`, nil, true, CodeParseError},
		{"depth counts from the array", `[` + strings.Repeat(`[`, 255) + strings.Repeat(`]`, 255) + `]`, []string{strings.Repeat(`[`, 255) + strings.Repeat(`]`, 255)}, true, 0},
		{"too deep", `[` + strings.Repeat(`[`, 256) + strings.Repeat(`]`, 256) + `]`, nil, true, CodeParseError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, isBatch, err := SplitBatch([]byte(tt.in), Limits{})
			assert.Equal(t, tt.isBatch, isBatch)
			if tt.code != 0 {
				require.NotNil(t, err)
				assert.Equal(t, tt.code, err.Code, err.Message)
				assert.Nil(t, items)
				return
			}
			require.Nil(t, err)
			got := make([]string, len(items))
			for i, it := range items {
				got[i] = string(it)
			}
			assert.Equal(t, tt.items, got)
		})
	}
}

func TestSplitBatchThenDecode(t *testing.T) {
	in := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},1]`
	items, isBatch, err := SplitBatch([]byte(in), Limits{})
	require.Nil(t, err)
	require.True(t, isBatch)
	require.Len(t, items, 3)
	msg, derr := Decode(items[0], Limits{})
	require.Nil(t, derr)
	assert.Equal(t, KindRequest, msg.Kind)
	msg, derr = Decode(items[1], Limits{})
	require.Nil(t, derr)
	assert.Equal(t, KindNotification, msg.Kind)
	msg, derr = Decode(items[2], Limits{})
	require.NotNil(t, derr)
	assert.Equal(t, int64(CodeInvalidRequest), derr.Code)
	assert.Equal(t, NullID, msg.ID)
}

func TestValid(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{`0`, true}, {`-0.5e-7`, true}, {`1E+2`, true}, {`"é\u0000\ud800"`, true}, {` true `, true},
		{`false`, true}, {`null`, true}, {`[]`, true}, {`{}`, true}, {`[1,{"a":[null]}]`, true},
		{``, false}, {`  `, false}, {`tru`, false}, {`truex`, false}, {`nulll`, false}, {`[1 2]`, false},
		{`{"a":1,}`, false}, {`{"a"}`, false}, {`{1:2}`, false}, {`"\u00"`, false}, {"\"\x7f\"", true},
		{"\"\x1f\"", false}, {`1 2`, false}, {`-01`, false}, {`1.5.2`, false}, {`[`, false}, {`]`, false},
		{`"abc`, false}, {`"\`, false}, {`{"a":1}}`, false},
	}
	for _, tt := range tests {
		err := Valid([]byte(tt.in), Limits{})
		if tt.ok {
			assert.Nil(t, err, "%q", tt.in)
		} else if assert.NotNil(t, err, "%q", tt.in) {
			assert.Equal(t, int64(CodeParseError), err.Code)
			assert.Equal(t, KindJSONRPC, err.Kind)
		}
	}
}

func TestValidLimits(t *testing.T) {
	assert.Nil(t, Valid([]byte(strings.Repeat("[", 256)+strings.Repeat("]", 256)), Limits{}))
	assert.NotNil(t, Valid([]byte(strings.Repeat("[", 257)+strings.Repeat("]", 257)), Limits{}))
	assert.Nil(t, Valid([]byte(strings.Repeat("1", 64)), Limits{}))
	assert.NotNil(t, Valid([]byte(strings.Repeat("1", 65)), Limits{}))
	assert.Nil(t, Valid([]byte(strings.Repeat("1", 65)), Limits{MaxNumberDigits: 65}))
	assert.NotNil(t, Valid([]byte(`[[1]]`), Limits{MaxDepth: 1}))
}
