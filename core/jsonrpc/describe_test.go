package jsonrpc

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUnmarshalTypeErrors(t *testing.T) {
	type inner struct {
		N    int      `json:"n"`
		Tags []string `json:"tags"`
	}
	type target struct {
		URI   string            `json:"uri"`
		Flag  bool              `json:"flag"`
		Items []inner           `json:"items"`
		Meta  map[string]string `json:"io.example/meta"`
		Obj   *inner            `json:"obj"`
	}
	cases := []struct {
		name, in, want string
	}{
		{"string gets number", `{"uri":5}`, `params.uri must be a string (got a number)`},
		{"bool gets string", `{"uri":"x", "flag":"yes"}`, `params.flag must be a boolean (got a string)`},
		{"deep array", `{"items":[{"n":1},{"n":2,"tags":["a",{}]}]}`, `params.items[1].tags[1] must be a string (got an object)`},
		{"int gets string", `{"items":[{"n":"1"}]}`, `params.items[0].n must be an integer in range (got a string)`},
		{"quoted name", `{"io.example/meta":{"k":[]}}`, `params["io.example/meta"].k must be a string (got an array)`},
		{"escaped name", "{\"ur\\u0069\":true}", `params.uri must be a string (got a boolean)`},
		{"object gets array", `{"obj":[1]}`, `params.obj must be an object (got an array)`},
		{"root", `[1]`, `params must be an object (got an array)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, unmarshal := range []func([]byte, any) error{Unmarshal, UnmarshalDecoded, UnmarshalRare} {
				var v target
				err := unmarshal([]byte(tc.in), &v)
				require.Error(t, err)
				assert.Equal(t, tc.want, Describe(err, "params"))
				var te *TypeError
				assert.ErrorAs(t, err, &te)
			}
		})
	}
}

// TestUnmarshalRareAgrees: encoding/json and sonic decode the same values.
func TestUnmarshalRareAgrees(t *testing.T) {
	type inner struct {
		N    int64   `json:"n"`
		F    float64 `json:"f,omitempty"`
		Skip string  `json:"-"`
	}
	type target struct {
		Name  string          `json:"name"`
		Any   any             `json:"any"`
		Raw   RawJSON         `json:"raw"`
		Items []inner         `json:"items"`
		Map   map[string]bool `json:"map"`
		Ptr   *inner          `json:"ptr"`
	}
	for _, in := range []string{
		`{"name":"echo","any":{"a":[1,2.5,"x",null,true]},"raw":{"k": [1]},"items":[{"n":9007199254740993,"f":1e300}],"map":{"b":true},"ptr":{"n":-1}}`,
		`{"NAME":"case folded","unknown":{"ignored":[]},"ptr":null,"items":null}`,
		`{"name":"\u00fc\ud83d\ude00 \"quoted\" \\ \/","any":12345678901234567890}`,
		`{}`,
	} {
		var want, got target
		require.NoError(t, Unmarshal([]byte(in), &want), in)
		require.NoError(t, UnmarshalRare([]byte(in), &got), in)
		assert.Equal(t, want, got, in)
	}
}

func TestUnmarshalNotJSON(t *testing.T) {
	var v map[string]any
	err := Unmarshal([]byte(`{"a":`), &v)
	require.Error(t, err)
	assert.Equal(t, "body: parse error: unexpected end of input", Describe(err, "body"))
}

func TestPathAt(t *testing.T) {
	cases := []struct {
		data      string
		pos       int
		path      []string
		wantStart int
	}{
		{`{"a":1}`, 100, nil, 0},
		{` { "a" : [ 1 ] } `, 9, []string{"a"}, 9},
		{` { "a" : [ 1 ] } `, 11, []string{"a", "[0]"}, 11},
		{`{"a":1,"b":{"c":"xyz"}}`, 18, []string{"b", "c"}, 16},
		{`[[],[[true]]]`, 7, []string{"[1]", "[0]", "[0]"}, 6},
	}
	for _, tc := range cases {
		path, start := pathAt([]byte(tc.data), tc.pos)
		assert.Equal(t, tc.path, path, tc.data)
		assert.Equal(t, tc.wantStart, start, tc.data)
	}
}

func TestStringMember(t *testing.T) {
	cases := []struct {
		obj, text, err string
		present        bool
	}{
		{`{"name":"echo"}`, "echo", "", true},
		{`{"a":1, "name" : "caf\u00e9\n"}`, "café\n", "", true},
		{`{"a":1}`, "", "", false},
		{`{"name":7}`, "", `params.name must be a string (got a number)`, true},
		{`{"name":null}`, "", `params.name must be a string (got null)`, true},
	}
	for _, tc := range cases {
		text, present, err := StringMember([]byte(tc.obj), "name")
		assert.Equal(t, tc.text, text, tc.obj)
		assert.Equal(t, tc.present, present, tc.obj)
		if tc.err == "" {
			assert.NoError(t, err, tc.obj)
		} else {
			assert.Equal(t, tc.err, Describe(err, "params"), tc.obj)
		}
	}
}

// TestUnmarshalDecodedShares holds UnmarshalDecoded, which reads a message
// in place, to sharing its bytes for a string without escapes (the copy of
// a large argument is what it spares) and decoding one with escapes.
func TestUnmarshalDecodedShares(t *testing.T) {
	in := []byte(`{"key":"value","esc":"a\"b","list":["item"],"nested":{"inner":"text"}}`)
	var m map[string]any
	require.NoError(t, UnmarshalDecoded(in, &m))
	assert.Equal(t, map[string]any{"key": "value", "esc": `a"b`, "list": []any{"item"}, "nested": map[string]any{"inner": "text"}}, m)
	var st struct {
		Key  string   `json:"key"`
		Esc  string   `json:"esc"`
		List []string `json:"list"`
	}
	require.NoError(t, UnmarshalDecoded(in, &st))
	assert.Equal(t, "value", st.Key)
	assert.Equal(t, `a"b`, st.Esc)
	assert.Equal(t, []string{"item"}, st.List)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(in)))
	at := uintptr(unsafe.Pointer(unsafe.StringData(st.Key)))
	assert.True(t, at >= start && at < start+uintptr(len(in)), "the plain string shares the message's bytes")
}

func TestUnmarshalOwned(t *testing.T) {
	var v struct {
		Text string `json:"text"`
	}
	require.NoError(t, UnmarshalOwned([]byte(`{"text":"caf\u00e9 \u00e9"}`), &v))
	assert.Equal(t, "café é", v.Text)
	err := UnmarshalOwned([]byte("{\"text\":\"\xff\"}"), &v)
	assert.Equal(t, "result: parse error: invalid UTF-8 in string at offset 9", Describe(err, "result"))
	err = UnmarshalOwned([]byte(`{"text":5}`), &v)
	assert.Equal(t, "result.text must be a string (got a number)", Describe(err, "result"))
}

// TestSkipValid checks the unchecked skipper against the validating
// scanner on values of every kind.
func TestSkipValid(t *testing.T) {
	for _, v := range []string{
		`0`, `-1.5e3`, `true`, `null`, `""`, `"a\"b"`, `"a\\"`, `"a\\\"b\\"`, `"é\u00e9"`,
		`{}`, `[]`, `{"a":[1,{"b":"}"}],"c":"]"}`, `[[[]],[{}],"x",-0]`, `{ "k" : [ 1 , 2 ] }`,
	} {
		for _, tail := range []string{"", ",", "}", " ,x"} {
			data := []byte(v + tail)
			assert.Equal(t, len(v), skipValid(data, 0), "%q", data)
		}
	}
}

func FuzzSkipValid(f *testing.F) {
	for _, s := range []string{`{"a":"b\\\""}`, `[1,"x",{"y":[true,null]}]`, `"\\\\"`, `-12.5e+3`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if Valid(data, Limits{MaxDepth: 1 << 20, MaxNumberDigits: 1 << 20}) != nil {
			return // only valid JSON is skipped
		}
		start, end := skipWS(data, 0), len(trimWS(data))+(len(data)-len(trimLeftWS(data)))
		if got := skipValid(data, start); got != end {
			t.Fatalf("skipValid(%q) = %d, the value ends at %d", data, got, end)
		}
	})
}

func trimLeftWS(b []byte) []byte { return b[skipWS(b, 0):] }
