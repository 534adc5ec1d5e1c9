package jsonrpc

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendID(t *testing.T) {
	tests := []struct {
		id   ID
		want string
	}{
		{IntID(0), `0`},
		{IntID(math.MinInt64), `-9223372036854775808`},
		{StringID(`a"b`), `"a\"b"`},
		{StringID(""), `""`},
		{NullID, `null`},
		{ID{}, `null`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, string(AppendID(nil, tt.id)), tt.id.String())
	}
}

func TestAppendResponse(t *testing.T) {
	got := AppendResponse([]byte("x"), IntID(7), []byte(`{"tools":[]}`))
	assert.Equal(t, `x{"jsonrpc":"2.0","id":7,"result":{"tools":[]}}`, string(got))
	assert.Equal(t, `{"jsonrpc":"2.0","id":"a","result":null}`, string(AppendResponse(nil, StringID("a"), nil)))

	for _, id := range []ID{IntID(-1), IntID(math.MaxInt64), StringID("é\n😀"), StringID("")} {
		msg, err := Decode(AppendResponse(nil, id, []byte(`{"a":[1,"é"]}`)), Limits{})
		require.Nil(t, err)
		assert.Equal(t, KindResponse, msg.Kind)
		assert.Equal(t, id, msg.ID)
		assert.Equal(t, `{"a":[1,"é"]}`, string(msg.Result))
	}
}

func TestAppendError(t *testing.T) {
	tests := []struct {
		name string
		id   ID
		err  *Error
		want string
	}{
		{"plain", IntID(1), Errorf(KindProtocol, CodeMethodNotFound, "no method %q", "x"),
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no method \"x\""}}`},
		{"absent id", ID{}, &Error{Code: CodeParseError, Message: "bad"},
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}`},
		{"struct data", StringID("s"), (&Error{Code: -32022, Message: "m"}).WithData(struct {
			Supported []string `json:"supported"`
			Requested string   `json:"requested"`
		}{[]string{"2025-06-18"}, "<v>"}),
			`{"jsonrpc":"2.0","id":"s","error":{"code":-32022,"message":"m","data":{"supported":["2025-06-18"],"requested":"<v>"}}}`},
		{"raw data", IntID(2), &Error{Code: 1, Message: "m", Data: RawJSON(`{"a":1}`)},
			`{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"m","data":{"a":1}}}`},
		{"json.RawMessage data", IntID(2), &Error{Code: 1, Message: "m", Data: json.RawMessage(`[1]`)},
			`{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"m","data":[1]}}`},
		{"invalid raw data omitted", IntID(2), &Error{Code: 1, Message: "m", Data: RawJSON(`{"a":`)},
			`{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"m"}}`},
		{"unencodable data omitted", IntID(2), &Error{Code: 1, Message: "m", Data: make(chan int)},
			`{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"m"}}`},
		{"NaN data omitted", IntID(2), &Error{Code: 1, Message: "m", Data: math.NaN()},
			`{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"m"}}`},
		{"nil error", IntID(3), nil,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"internal error"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AppendError(nil, tt.id, tt.err)
			assert.Equal(t, tt.want, string(got))
			assert.True(t, json.Valid(got))
		})
	}
}

func TestAppendErrorRoundTrip(t *testing.T) {
	in := &Error{Code: CodeInvalidParams, Message: "bad \"arg\"\t☃", Data: map[string]any{"field": "x"}}
	msg, err := Decode(AppendError(nil, StringID("r1"), in), Limits{})
	require.Nil(t, err)
	assert.Equal(t, KindError, msg.Kind)
	assert.Equal(t, StringID("r1"), msg.ID)
	require.NotNil(t, msg.Error)
	assert.Equal(t, in.Code, msg.Error.Code)
	assert.Equal(t, in.Message, msg.Error.Message)
	assert.Equal(t, RawJSON(`{"field":"x"}`), msg.Error.Data)

	msg, err = Decode(AppendError(nil, NullID, in), Limits{})
	require.Nil(t, err)
	assert.Equal(t, NullID, msg.ID)
}

func TestAppendRequestAndNotification(t *testing.T) {
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		string(AppendNotification(nil, "notifications/initialized", nil)))
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`,
		string(AppendNotification(nil, "notifications/progress", []byte(`{"progress":1}`))))
	assert.Equal(t, `{"jsonrpc":"2.0","id":9,"method":"ping"}`, string(AppendRequest(nil, IntID(9), "ping", nil)))

	raw := AppendRequest(nil, StringID("q"), "tools/call", []byte(`{"name":"echo"}`))
	msg, err := Decode(raw, Limits{})
	require.Nil(t, err)
	assert.Equal(t, KindRequest, msg.Kind)
	assert.Equal(t, StringID("q"), msg.ID)
	assert.Equal(t, "tools/call", msg.Method)
	assert.Equal(t, `{"name":"echo"}`, string(msg.Params))

	msg, err = Decode(AppendNotification(nil, "x/\"odd\"", []byte(`{}`)), Limits{})
	require.Nil(t, err)
	assert.Equal(t, KindNotification, msg.Kind)
	assert.Equal(t, `x/"odd"`, msg.Method)
}

func TestRawJSON(t *testing.T) {
	b, err := Marshal(map[string]any{"d": RawJSON(`[1, 2]`), "e": RawJSON(nil)})
	require.NoError(t, err)
	var back map[string]any
	require.NoError(t, Unmarshal(b, &back))
	assert.Equal(t, map[string]any{"d": []any{1.0, 2.0}, "e": nil}, back)

	var r RawJSON
	src := []byte(`{"x":"y"}`)
	require.NoError(t, json.Unmarshal(src, &r))
	src[2] = 'z'
	assert.Equal(t, `{"x":"y"}`, string(r))
}

func TestMarshal(t *testing.T) {
	b, err := Marshal(map[string]any{"html": "<a href=\"x\">&</a>", "n": []int(nil), "m": map[string]int(nil)})
	require.NoError(t, err)
	var back map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, `"<a href=\"x\">&</a>"`, string(back["html"]), "no HTML escaping")
	assert.Equal(t, `null`, string(back["n"]), "nil slices stay null, like encoding/json")
	assert.Equal(t, `null`, string(back["m"]))

	_, err = Marshal(make(chan int))
	assert.Error(t, err)

	var v any
	require.NoError(t, Unmarshal([]byte(`{"a":1,"b":[true,"s",null]}`), &v))
	assert.Equal(t, map[string]any{"a": 1.0, "b": []any{true, "s", nil}}, v)

	var s struct{ Name string }
	require.NoError(t, Unmarshal([]byte(`{"name":"ci"}`), &s), "field names match case-insensitively, like encoding/json")
	assert.Equal(t, "ci", s.Name)
	assert.Error(t, Unmarshal([]byte(`{"a":`), &v))
}

// compactMarshaler writes spaced JSON, which both encoders compact.
type compactMarshaler struct{}

func (compactMarshaler) MarshalJSON() ([]byte, error) {
	return []byte(`{ "b" : 2 , "a" : [ 1 ] }`), nil
}

// lineSeparators undoes the one escape encoding/json makes and sonic does
// not: U+2028 and U+2029, which JSON allows raw or escaped.
var lineSeparators = strings.NewReplacer(`\u2028`, "\u2028", `\u2029`, "\u2029")

func TestMarshalResponseMatchesMarshal(t *testing.T) { // and WithResponse, WithResponseRare
	big := make([]byte, 70000)
	for i := range big {
		big[i] = 'a' + byte(i%26)
	}
	for _, tc := range []struct {
		name string
		v    any
	}{
		{"nil", nil},
		{"sorted map keys", map[string]any{"z": 1, "a": []any{true, nil}, "m": map[string]int{"y": 1, "b": 2}}},
		{"no HTML escaping", map[string]string{"html": `<a href="x">&</a>`}},
		{"invalid UTF-8 replaced", map[string]string{"s": "ok\xff\xfe end", "é": "\u2028"}},
		{"compacted marshaler", struct {
			M compactMarshaler `json:"m"`
		}{}},
		{"larger than the pooled scratch", map[string]string{"text": strings.Repeat("x", maxScratch+1)}},
		{"64 KiB", map[string]string{"text": string(big)}},
		{"struct tags", struct {
			Name  string         `json:"name"`
			Empty string         `json:"empty,omitempty"`
			Raw   RawJSON        `json:"raw"`
			Ptr   *int           `json:"ptr,omitempty"`
			Any   any            `json:"any"`
			Meta  map[string]any `json:"_meta,omitempty"`
			Skip  int            `json:"-"`
		}{Name: "n", Raw: RawJSON(`{"k":[1,2]}`), Any: []any{1.5, 1e21, -0.0, 123456789, "\u0001"}, Meta: map[string]any{"b": 1, "a": 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, id := range []ID{IntID(7), StringID("r-1")} {
				body, err := Marshal(tc.v)
				require.NoError(t, err)
				want := AppendResponse(nil, id, body)
				for range 2 { // the second time from a used scratch buffer
					got, err := MarshalResponse(id, tc.v)
					require.NoError(t, err)
					assert.Equal(t, string(want), string(got))
					var lent string
					require.NoError(t, WithResponse(id, tc.v, func(msg []byte) { lent = string(msg) }))
					assert.Equal(t, string(want), lent)
					require.NoError(t, WithResponseRare(id, tc.v, func(msg []byte) { lent = string(msg) }))
					assert.Equal(t, string(want), lineSeparators.Replace(lent), "encoding/json's bytes are sonic's")
				}
			}
		})
	}
	_, err := MarshalResponse(IntID(1), make(chan int))
	assert.Error(t, err)
	assert.Error(t, WithResponse(IntID(1), make(chan int), func([]byte) { t.Error("use called for a failed encoding") }))
	assert.Error(t, WithResponseRare(IntID(1), make(chan int), func([]byte) { t.Error("use called for a failed encoding") }))
}
