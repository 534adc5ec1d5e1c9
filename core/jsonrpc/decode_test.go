package jsonrpc

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// env wraps members in a valid envelope with the given id and method.
func req(id, rest string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call"` + rest + `}`
}

// nested returns params nested n levels deep inside the envelope: n objects.
func nestedParams(n int) string {
	return `{"jsonrpc":"2.0","id":1,"method":"m","params":` +
		strings.Repeat(`{"a":`, n) + `0` + strings.Repeat(`}`, n) + `}`
}

func TestDecodeValid(t *testing.T) {
	long := strings.Repeat("x", DefaultMaxIDBytes)
	tests := []struct {
		name, in string
		kind     Kind
		id       ID
		method   string
		params   string // "" means nil
		result   string
	}{
		{"request", req(`1`, `,"params":{"name":"x"}`), KindRequest, IntID(1), "tools/call", `{"name":"x"}`, ""},
		{"string id", req(`"abc"`, ""), KindRequest, StringID("abc"), "tools/call", "", ""},
		{"zero id", req(`0`, ""), KindRequest, IntID(0), "tools/call", "", ""},
		{"negative zero id", req(`-0`, ""), KindRequest, IntID(0), "tools/call", "", ""},
		{"max int64 id", req(`9223372036854775807`, ""), KindRequest, IntID(9223372036854775807), "tools/call", "", ""},
		{"min int64 id", req(`-9223372036854775808`, ""), KindRequest, IntID(-9223372036854775808), "tools/call", "", ""},
		{"18-digit id", req(`-999999999999999999`, ""), KindRequest, IntID(-999999999999999999), "tools/call", "", ""},
		{"19-digit id", req(`1000000000000000000`, ""), KindRequest, IntID(1000000000000000000), "tools/call", "", ""},
		{"empty string id", req(`""`, ""), KindRequest, StringID(""), "tools/call", "", ""},
		{"id at MaxIDBytes", req(`"`+long+`"`, ""), KindRequest, StringID(long), "tools/call", "", ""},
		{"escaped id at MaxIDBytes", req(`"`+strings.Repeat(`\u0078`, DefaultMaxIDBytes)+`"`, ""), KindRequest, StringID(long), "tools/call", "", ""},
		{"escaped id", req(`"a\u00e9\n\"\\\/"`, ""), KindRequest, StringID("aé\n\"\\/"), "tools/call", "", ""},
		{"surrogate pair id", req(`"\ud83d\ude00"`, ""), KindRequest, StringID("😀"), "tools/call", "", ""},
		{"lone surrogate id", req(`"\ud800x\udc00"`, ""), KindRequest, StringID("\uFFFDx\uFFFD"), "tools/call", "", ""},
		{"utf-8 id", req(`"ид"`, ""), KindRequest, StringID("ид"), "tools/call", "", ""},
		{"empty params", req(`2`, `,"params":{}`), KindRequest, IntID(2), "tools/call", `{}`, ""},
		{"any order", `{"params":{"a":[1,{"b":null}]},"method":"ping","jsonrpc":"2.0","id":3}`, KindRequest, IntID(3), "ping", `{"a":[1,{"b":null}]}`, ""},
		{"whitespace", " \t\r\n{ \"jsonrpc\" : \"2.0\" ,\n\"id\" :1, \"method\":\"ping\" , \"params\" : { } }\n ", KindRequest, IntID(1), "ping", `{ }`, ""},
		{"escaped method", `{"jsonrpc":"2.0","id":1,"method":"tools\/c\u0061ll"}`, KindRequest, IntID(1), "tools/call", "", ""},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"x/y"}`, KindRequest, IntID(1), "x/y", "", ""},
		{"escaped names", `{"\u006asonrpc":"2\u002e0","\u0069d":5,"method":"ping"}`, KindRequest, IntID(5), "ping", "", ""},
		{"extra members ignored", `{"jsonrpc":"2.0","id":1,"method":"ping","_meta":{"x":1},"foo":[true,false,null]}`, KindRequest, IntID(1), "ping", "", ""},
		{"nesting at MaxDepth", nestedParams(DefaultMaxDepth - 1), KindRequest, IntID(1), "m", strings.Repeat(`{"a":`, 255) + `0` + strings.Repeat(`}`, 255), ""},
		{"number at MaxNumberDigits", req(`1`, `,"params":{"n":-`+strings.Repeat("1", 32)+`.`+strings.Repeat("2", 30)+`e+12}`), KindRequest, IntID(1), "tools/call", `{"n":-` + strings.Repeat("1", 32) + `.` + strings.Repeat("2", 30) + `e+12}`, ""},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, KindNotification, ID{}, "notifications/initialized", "", ""},
		{"notification with params", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, KindNotification, ID{}, "notifications/cancelled", `{"requestId":1}`, ""},
		{"response", `{"jsonrpc":"2.0","id":"a","result":{"x":[1,2]}}`, KindResponse, StringID("a"), "", "", `{"x":[1,2]}`},
		{"null result", `{"jsonrpc":"2.0","id":1,"result":null}`, KindResponse, IntID(1), "", "", `null`},
		{"scalar result", `{"result":"ok","id":1,"jsonrpc":"2.0"}`, KindResponse, IntID(1), "", "", `"ok"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, err := Decode([]byte(tt.in), Limits{})
			require.Nil(t, err)
			assert.Equal(t, tt.kind, msg.Kind)
			assert.Equal(t, tt.id, msg.ID)
			assert.Equal(t, tt.method, msg.Method)
			if tt.params == "" {
				assert.Nil(t, msg.Params)
			} else {
				assert.Equal(t, tt.params, string(msg.Params))
			}
			assert.Equal(t, tt.result, string(msg.Result))
			assert.Nil(t, msg.Error)
		})
	}
}

func TestDecodeErrorResponse(t *testing.T) {
	tests := []struct {
		name, in string
		id       ID
		want     Error
	}{
		{"null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, NullID, Error{Code: -32700, Message: "parse error"}},
		{"with id", `{"jsonrpc":"2.0","id":7,"error":{"message":"no\u0020such tool","code":-32602}}`, IntID(7), Error{Code: -32602, Message: "no such tool"}},
		{"with data", `{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"","data":{"a":[1]},"extra":0}}`, StringID("x"), Error{Code: 1, Data: RawJSON(`{"a":[1]}`)}},
		{"null data", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":null}}`, IntID(1), Error{Code: 1, Message: "m", Data: RawJSON(`null`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, err := Decode([]byte(tt.in), Limits{})
			require.Nil(t, err)
			assert.Equal(t, KindError, msg.Kind)
			assert.Equal(t, tt.id, msg.ID)
			require.NotNil(t, msg.Error)
			assert.Equal(t, tt.want, *msg.Error)
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	deep := nestedParams(300)
	manyUnknown := `{"jsonrpc":"2.0","id":4,"method":"m"`
	for i := 0; i < 12; i++ {
		manyUnknown += `,"k` + string(rune('a'+i)) + `":0`
	}
	manyUnknown += `,"k\u0062":1}`
	tests := []struct {
		name, in string
		code     int64
		id       ID     // the id to answer with
		msg      string // a substring of the error message, if checked
	}{
		// Parse errors: always answered with null.
		{"empty", ``, CodeParseError, NullID, "end of input"},
		{"blank", " \n", CodeParseError, NullID, "end of input"},
		{"truncated", `{"jsonrpc":"2.0","id":1`, CodeParseError, NullID, "end of input"},
		{"trailing comma", `{"jsonrpc":"2.0","id":1,}`, CodeParseError, NullID, ""},
		{"missing colon", `{"jsonrpc" "2.0"}`, CodeParseError, NullID, ""},
		{"unquoted name", `{jsonrpc:"2.0"}`, CodeParseError, NullID, ""},
		{"single quotes", `{'jsonrpc':'2.0'}`, CodeParseError, NullID, ""},
		{"two values", `{}{}`, CodeParseError, NullID, "after the value"},
		{"trailing garbage", req(`1`, ``) + ` x`, CodeParseError, NullID, "after the value"},
		{"BOM", "\xef\xbb\xbf" + req(`1`, ``), CodeParseError, NullID, "0xef"},
		{"nesting deeper than MaxDepth", deep, CodeParseError, NullID, "nesting deeper than 256"},
		{"nesting one too deep", nestedParams(DefaultMaxDepth), CodeParseError, NullID, "nesting deeper than 256"},
		{"65-digit integer in params", req(`1`, `,"params":{"n":`+strings.Repeat("9", 65)+`}`), CodeParseError, NullID, "longer than 64 digits"},
		{"65 digits with fraction", req(`1`, `,"params":{"n":1.`+strings.Repeat("0", 64)+`}`), CodeParseError, NullID, "digits"},
		{"invalid UTF-8 deep in params", req(`1`, ",\"params\":{\"a\":[{\"b\":\"ok \xff\"}]}"), CodeParseError, NullID, "UTF-8"},
		{"UTF-8 encoded surrogate", req(`1`, ",\"params\":{\"a\":\"\xed\xa0\x80\"}"), CodeParseError, NullID, "UTF-8"},
		{"overlong UTF-8", req(`1`, ",\"params\":{\"a\":\"\xc0\xaf\"}"), CodeParseError, NullID, "UTF-8"},
		{"truncated UTF-8", req("\"\xe2\x82\"", ``), CodeParseError, NullID, "UTF-8"},
		{"invalid UTF-8 in name", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"\xff\":1}", CodeParseError, NullID, "UTF-8"},
		{"non-ASCII outside strings", `{"jsonrpc":"2.0","id":1,"method":"m"}` + "\u00a0", CodeParseError, NullID, ""},
		{"raw newline in string", req(`"a`+"\n"+`b"`, ``), CodeParseError, NullID, "control character"},
		{"raw tab in string", req(`1`, `,"params":{"a":"`+"\t"+`"}`), CodeParseError, NullID, "control character"},
		{"bad escape", req(`"\x41"`, ``), CodeParseError, NullID, "escape"},
		{"short unicode escape", req(`"\u12"`, ``), CodeParseError, NullID, "escape"},
		{"non-hex unicode escape", req(`"\u12g4"`, ``), CodeParseError, NullID, "escape"},
		{"leading zero", req(`01`, ``), CodeParseError, NullID, ""},
		{"leading plus", req(`+1`, ``), CodeParseError, NullID, ""},
		{"bare minus", req(`-`, ``), CodeParseError, NullID, ""},
		{"no fraction digits", req(`1.`, ``), CodeParseError, NullID, ""},
		{"no exponent digits", req(`1e+`, ``), CodeParseError, NullID, ""},
		{"leading dot", req(`.5`, ``), CodeParseError, NullID, ""},
		{"NaN", req(`NaN`, ``), CodeParseError, NullID, ""},
		{"bad literal", req(`nul`, ``), CodeParseError, NullID, "literal"},
		{"mismatched brackets", req(`1`, `,"params":{"a":[}`), CodeParseError, NullID, ""},
		{"comment", req(`1`, ``) + `// x`, CodeParseError, NullID, ""},

		// Not an object.
		{"batch", `[` + req(`1`, ``) + `]`, CodeInvalidRequest, NullID, "object"},
		{"number", `1`, CodeInvalidRequest, NullID, "object"},
		{"string", `"x"`, CodeInvalidRequest, NullID, "object"},
		{"null", ` null `, CodeInvalidRequest, NullID, "object"},
		{"empty object", `{}`, CodeInvalidRequest, NullID, ""},

		// Version.
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"m"}`, CodeInvalidRequest, IntID(1), "jsonrpc"},
		{"jsonrpc number", `{"jsonrpc":2.0,"id":"a","method":"m"}`, CodeInvalidRequest, StringID("a"), "jsonrpc"},
		{"jsonrpc missing", `{"id":1,"method":"m"}`, CodeInvalidRequest, IntID(1), "jsonrpc"},
		{"jsonrpc missing, bad id", `{"id":1.5,"method":"m"}`, CodeInvalidRequest, NullID, ""},

		// Ids.
		{"null id in request", req(`null`, ``), CodeInvalidRequest, NullID, "null"},
		{"fractional id", req(`1.5`, ``), CodeInvalidRequest, NullID, "integer"},
		{"integral fraction id", req(`1.0`, ``), CodeInvalidRequest, NullID, "integer"},
		{"exponent id", req(`1e3`, ``), CodeInvalidRequest, NullID, "integer"},
		{"id 2^63", req(`9223372036854775808`, ``), CodeInvalidRequest, NullID, "64 bits"},
		{"id -2^63-1", req(`-9223372036854775809`, ``), CodeInvalidRequest, NullID, "64 bits"},
		{"boolean id", req(`true`, ``), CodeInvalidRequest, NullID, "string or an integer"},
		{"object id", req(`{"a":1}`, ``), CodeInvalidRequest, NullID, "string or an integer"},
		{"array id", req(`[1]`, ``), CodeInvalidRequest, NullID, "string or an integer"},
		{"257-byte id", req(`"`+strings.Repeat("x", 257)+`"`, ``), CodeInvalidRequest, NullID, "longer than 256"},
		{"257-byte escaped id", req(`"`+strings.Repeat(`\n`, 257)+`"`, ``), CodeInvalidRequest, NullID, "longer than 256"},
		{"long escaped id", req(`"`+strings.Repeat(`\u0041`, 1000)+`"`, ``), CodeInvalidRequest, NullID, "longer than 256"},

		// Method and params.
		{"numeric method", `{"jsonrpc":"2.0","id":3,"method":1}`, CodeInvalidRequest, IntID(3), "method"},
		{"empty method", `{"jsonrpc":"2.0","id":3,"method":""}`, CodeInvalidRequest, IntID(3), "method"},
		{"numeric method in notification", `{"jsonrpc":"2.0","method":1,"params":"bar"}`, CodeInvalidRequest, NullID, "method"},
		{"array params", req(`1`, `,"params":[]`), CodeInvalidParams, IntID(1), "params"},
		{"string params", req(`"s"`, `,"params":"x"`), CodeInvalidParams, StringID("s"), "params"},
		{"null params", req(`2`, `,"params":null`), CodeInvalidParams, IntID(2), "params"},
		{"array params, bad id", req(`null`, `,"params":[]`), CodeInvalidRequest, NullID, ""},
		{"array params in notification", `{"jsonrpc":"2.0","method":"m","params":[1]}`, CodeInvalidRequest, ID{}, "params"},

		// Shape.
		{"method and result", req(`1`, `,"result":{}`), CodeInvalidRequest, IntID(1), "result"},
		{"method and error", req(`1`, `,"error":{"code":1,"message":"m"}`), CodeInvalidRequest, IntID(1), "error"},
		{"result and error", `{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}}`, CodeInvalidRequest, IntID(1), "both"},
		{"no method, result or error", `{"jsonrpc":"2.0","id":1}`, CodeInvalidRequest, IntID(1), ""},
		{"response with null id", `{"jsonrpc":"2.0","id":null,"result":1}`, CodeInvalidRequest, NullID, "id"},
		{"response without id", `{"jsonrpc":"2.0","result":1}`, CodeInvalidRequest, NullID, "id"},
		{"response with bad id", `{"jsonrpc":"2.0","id":1.5,"result":1}`, CodeInvalidRequest, NullID, "integer"},
		{"error without id", `{"jsonrpc":"2.0","error":{"code":1,"message":"m"}}`, CodeInvalidRequest, NullID, "id"},
		{"error not an object", `{"jsonrpc":"2.0","id":1,"error":"boom"}`, CodeInvalidRequest, IntID(1), "object"},
		{"error without code", `{"jsonrpc":"2.0","id":1,"error":{"message":"m"}}`, CodeInvalidRequest, IntID(1), "code"},
		{"fractional code", `{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`, CodeInvalidRequest, IntID(1), "code"},
		{"string code", `{"jsonrpc":"2.0","id":1,"error":{"code":"1","message":"m"}}`, CodeInvalidRequest, IntID(1), "code"},
		{"error without message", `{"jsonrpc":"2.0","id":1,"error":{"code":1}}`, CodeInvalidRequest, IntID(1), "message"},
		{"numeric message", `{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":2}}`, CodeInvalidRequest, NullID, "message"},
		{"duplicate code", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","code":2}}`, CodeInvalidRequest, IntID(1), "duplicate"},

		// Duplicates.
		{"duplicate id", `{"jsonrpc":"2.0","id":1,"method":"m","id":2}`, CodeInvalidRequest, NullID, `"id"`},
		{"escaped duplicate id", `{"jsonrpc":"2.0","id":1,"method":"m","\u0069d":1}`, CodeInvalidRequest, NullID, `"id"`},
		{"duplicate method", `{"jsonrpc":"2.0","id":1,"method":"m","method":"n"}`, CodeInvalidRequest, IntID(1), `"method"`},
		{"duplicate jsonrpc", `{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"m"}`, CodeInvalidRequest, IntID(1), `"jsonrpc"`},
		{"duplicate unknown", `{"jsonrpc":"2.0","id":1,"method":"m","x":1,"x":2}`, CodeInvalidRequest, IntID(1), `"x"`},
		{"escaped duplicate unknown", `{"jsonrpc":"2.0","id":1,"method":"m","é":1,"\u00e9":2}`, CodeInvalidRequest, IntID(1), `"é"`},
		{"duplicate among many unknown", manyUnknown, CodeInvalidRequest, IntID(4), `"kb"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, err := Decode([]byte(tt.in), Limits{})
			require.NotNil(t, err)
			assert.Equal(t, tt.code, err.Code, err.Message)
			assert.Equal(t, KindJSONRPC, err.Kind)
			assert.Equal(t, tt.id, msg.ID)
			assert.Equal(t, KindInvalid, msg.Kind)
			assert.Contains(t, err.Message, tt.msg)
		})
	}
}

func TestDecodeLimits(t *testing.T) {
	lim := Limits{MaxDepth: 3, MaxIDBytes: 2, MaxNumberDigits: 3}
	tests := []struct {
		name, in string
		code     int64
	}{
		{"depth ok", req(`1`, `,"params":{"a":[]}`), 0},
		{"depth exceeded", req(`1`, `,"params":{"a":[[]]}`), CodeParseError},
		{"id ok", req(`"ab"`, ``), 0},
		{"id too long", req(`"abc"`, ``), CodeInvalidRequest},
		{"digits ok", req(`1`, `,"params":{"a":1.2e3}`), 0},
		{"digits exceeded", req(`1`, `,"params":{"a":1.2e34}`), CodeParseError},
		{"integer id digits exceeded", req(`1234`, ``), CodeParseError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode([]byte(tt.in), lim)
			if tt.code == 0 {
				assert.Nil(t, err)
				return
			}
			require.NotNil(t, err)
			assert.Equal(t, tt.code, err.Code, err.Message)
		})
	}
}

func TestDecodeRaisedMaxDepth(t *testing.T) {
	// Deeper than the scanner's fixed stack, so the overflow path is used.
	lim := Limits{MaxDepth: 1000}
	_, err := Decode([]byte(nestedParams(999)), lim)
	assert.Nil(t, err)
	in := `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":` +
		strings.Repeat(`[{"a":`, 300) + `0` + strings.Repeat(`}]`, 300) + `}}`
	_, err = Decode([]byte(in), lim)
	assert.Nil(t, err)
	_, err = Decode([]byte(nestedParams(1000)), lim)
	require.NotNil(t, err)
	assert.Contains(t, err.Message, "nesting deeper than 1000")
	// A bracket mismatch deep in the overflow part is still seen.
	bad := `{"jsonrpc":"2.0","id":1,"method":"m","params":` +
		strings.Repeat(`[`, 400) + `}` + `}`
	_, err = Decode([]byte(bad), lim)
	require.NotNil(t, err)
	assert.Equal(t, int64(CodeParseError), err.Code)
}

func TestDecodeAliasesInput(t *testing.T) {
	in := []byte(req(`1`, `,"params":{"a":1}`))
	msg, err := Decode(in, Limits{})
	require.Nil(t, err)
	require.NotEmpty(t, msg.Params)
	assert.Same(t, &in[len(in)-len(`{"a":1}}`)], &msg.Params[0])
}

func TestDecodeAllocs(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  float64
	}{
		{"known method, integer id", req(`1`, `,"params":{"name":"x","arguments":{}}`), 0},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, 0},
		{"escaped known method", `{"jsonrpc":"2.0","id":1,"method":"tools\/call"}`, 0},
		{"response", `{"jsonrpc":"2.0","id":1,"result":{"a":1}}`, 0},
		{"string id", req(`"abc"`, ``), 1},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"x/y"}`, 1},
	}
	for _, tt := range tests {
		in := []byte(tt.in)
		got := testing.AllocsPerRun(100, func() {
			if _, err := Decode(in, Limits{}); err != nil {
				t.Fatal(err)
			}
		})
		assert.LessOrEqual(t, got, tt.max, tt.name)
	}
}

func TestInternMethod(t *testing.T) {
	for _, names := range methodsByLen {
		for _, m := range names {
			in := []byte(`{"jsonrpc":"2.0","id":1,"method":"` + m + `"}`)
			msg, err := Decode(in, Limits{})
			require.Nil(t, err)
			assert.Equal(t, m, msg.Method)
			assert.Zero(t, testing.AllocsPerRun(10, func() { _, _ = Decode(in, Limits{}) }), m)
		}
	}
	assert.Equal(t, "tools/cal", internMethod([]byte("tools/cal")))
	assert.Equal(t, strings.Repeat("x", 100), internMethod([]byte(strings.Repeat("x", 100))))
}

// Decode locates ParamNames in an object params as it validates it, with
// the same checks and errors as for any other value: at each depth limit,
// its answer is Valid's.
func TestDecodeLocatesParams(t *testing.T) {
	inputs := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"progressToken":1}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[[{}]],"name":"n","name":"second"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","par\u0061ms":{"n\u0061me":"esc"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"n",}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"name" "n"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"n"`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{`,
		`{"jsonrpc":"2.0","method":"m","params":{"_meta":{},"requestState":"s","inputResponses":{"k":{}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":1},"params":{"name":2}}`,
		// The longest name, every byte escaped: 84 raw bytes.
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"` +
			`\u0069\u006e\u0070\u0075\u0074\u0052\u0065\u0073\u0070\u006f\u006e\u0073\u0065\u0073":{}}}`,
	}
	for _, in := range inputs {
		for _, depth := range []int{1, 2, 3, 0} {
			lim := Limits{MaxDepth: depth}
			msg, err := Decode([]byte(in), lim)
			if verr := Valid([]byte(in), lim); verr != nil {
				require.NotNil(t, err, "%s at depth %d", in, depth)
				assert.Equal(t, verr.Message, err.Message, "%s at depth %d", in, depth)
				continue
			}
			if err != nil {
				continue // valid JSON, not a valid request
			}
			checkLocatedParams(t, msg)
		}
	}
	msg, err := Decode([]byte(inputs[0]), Limits{})
	require.Nil(t, err)
	spans, ok := msg.LocatedParams()
	require.True(t, ok)
	at := func(i int) string { return string(msg.Params[spans[i].Start:spans[i].End]) }
	assert.Equal(t, `"echo"`, at(ParamName))
	assert.Equal(t, `{"text":"x"}`, at(ParamArguments))
	assert.Equal(t, `{"progressToken":1}`, at(ParamMeta))
	assert.Zero(t, spans[ParamRequestState].End)

	msg, err = Decode([]byte(inputs[len(inputs)-1]), Limits{})
	require.Nil(t, err)
	spans, ok = msg.LocatedParams()
	require.True(t, ok)
	assert.Equal(t, `{}`, at(ParamInputResponses))
}

// The switches of paramIndex and envelopeIndex must agree with the name
// tables the rest of the package reads.
func TestNameIndexesMatchTables(t *testing.T) {
	for i, n := range ParamNames {
		assert.Equal(t, i, paramIndex([]byte(n)), n)
		assert.Equal(t, -1, envelopeIndex([]byte(n)), n)
	}
	for i, n := range envelopeNames {
		assert.Equal(t, i, envelopeIndex([]byte(n)), n)
		assert.Equal(t, -1, paramIndex([]byte(n)), n)
	}
	for _, n := range []string{"", "i", "Id", "names", "argument", "params ", "_Meta"} {
		assert.Equal(t, -1, paramIndex([]byte(n)), n)
		assert.Equal(t, -1, envelopeIndex([]byte(n)), n)
	}
}
