package jsonrpc

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Paris"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":"abc","result":{"content":[{"type":"text","text":"hi"}]}}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error","data":[1,2]}}`,
	`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"}]`,
	`{"jsonrpc":"2.0","id":1.5,"method":"m"}`,
	`{"jsonrpc":"2.0","id":9223372036854775808,"method":"m"}`,
	`{"jsonrpc":"2.0","id":-9223372036854775808,"method":"m"}`,
	`{"jsonrpc":"2.0","id":"\ud83d\ude00\ud800","method":"\u0074ools/list"}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}`,
	`{"\u006asonrpc":"2\u002e0","\u0069d":5,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":[]}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[[[[{"b":-0.5e+10}]]]]}}`,
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":\"\xff\"}}",
	"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"method\":\"m\"}",
	" \t\n{ \"jsonrpc\" : \"2.0\" , \"method\" : \"m\" } \r\n",
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"s":"\"\\\/\b\f\n\r\t\u0000"}}`,
	`{"jsonrpc":"2.0","id":01,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m",}`,
	`[]`, `{}`, `null`, `"x"`, `-0.0E-0`, `[1,[2,{"3":4}]]`, `{"a":1}{"b":2}`,
}

// stdLimits makes the limits as loose as encoding/json's, so the two
// validators must agree exactly.
var stdLimits = Limits{MaxDepth: 10000, MaxNumberDigits: 1 << 30, MaxIDBytes: 1 << 30}

func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		stdOK := json.Valid(data) && utf8.Valid(data)
		if err := Valid(data, stdLimits); (err == nil) != stdOK {
			t.Fatalf("Valid = %v, encoding/json+utf8 say %v", err, stdOK)
		}
		if Valid(data, Limits{}) == nil && !stdOK {
			t.Fatal("Valid accepts what encoding/json rejects")
		}
		if items, isBatch, err := SplitBatch(data, Limits{}); err == nil && isBatch {
			if !stdOK {
				t.Fatal("SplitBatch accepts invalid JSON")
			}
			for _, it := range items {
				if !json.Valid(it) {
					t.Fatalf("batch item %q is not valid JSON", it)
				}
			}
		}
		msg, err := Decode(data, Limits{})
		if err != nil {
			checkDecodeError(t, data, msg, err)
			if verr := Valid(data, Limits{}); err.Code == CodeParseError && (verr == nil || verr.Message != err.Message) {
				t.Fatalf("Decode's parse error %q, Valid's %v", err.Message, verr)
			}
			return
		}
		if !stdOK {
			t.Fatal("Decode accepts what encoding/json rejects")
		}
		checkAgainstStdlib(t, data, msg)
		checkLocatedParams(t, msg)
	})
}

// checkLocatedParams: where Decode located ParamNames in an object params
// is where Members finds them.
func checkLocatedParams(t *testing.T, msg Message) {
	spans, ok := msg.LocatedParams()
	if msg.Params == nil {
		if ok {
			t.Fatal("params located in a message without params")
		}
		return
	}
	if !ok {
		t.Fatalf("params %q not located", msg.Params)
	}
	var want [NumParams][]byte
	Members(msg.Params, ParamNames[:], want[:])
	for i, sp := range spans {
		var got []byte
		if sp.End != 0 {
			got = msg.Params[sp.Start:sp.End]
		}
		if !bytes.Equal(got, want[i]) || (got == nil) != (want[i] == nil) {
			t.Fatalf("%s: located %q, Members finds %q", ParamNames[i], got, want[i])
		}
	}
}

func checkDecodeError(t *testing.T, data []byte, msg Message, err *Error) {
	switch err.Code {
	case CodeParseError:
		if json.Valid(data) && utf8.Valid(data) && Valid(data, Limits{}) == nil {
			t.Fatalf("parse error %q on valid JSON", err.Message)
		}
		if !msg.ID.IsNull() {
			t.Fatalf("parse error answered with id %v", msg.ID)
		}
	case CodeInvalidRequest, CodeInvalidParams:
		if Valid(data, Limits{}) != nil {
			t.Fatalf("invalid JSON reported as %d %q", err.Code, err.Message)
		}
	default:
		t.Fatalf("unexpected code %d", err.Code)
	}
}

// checkAgainstStdlib decodes the envelope with encoding/json and compares.
func checkAgainstStdlib(t *testing.T, data []byte, msg Message) {
	var env map[string]json.RawMessage
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	var method string
	if raw, ok := env["method"]; ok {
		if err := json.Unmarshal(raw, &method); err != nil || method != msg.Method {
			t.Fatalf("method %q, encoding/json says %q (%v)", msg.Method, method, err)
		}
	}
	if raw, ok := env["id"]; ok && msg.ID.IsString() {
		var id string
		s, _ := msg.ID.Str()
		if err := json.Unmarshal(raw, &id); err != nil || id != s {
			t.Fatalf("id %q, encoding/json says %q (%v)", s, id, err)
		}
	}
	if raw, ok := env["id"]; ok {
		if n, isInt := msg.ID.Int(); isInt {
			var m int64
			if err := json.Unmarshal(raw, &m); err != nil || m != n {
				t.Fatalf("id %d, encoding/json says %d (%v)", n, m, err)
			}
		}
	}
	for _, raw := range [][]byte{msg.Params, msg.Result} {
		if raw != nil && !json.Valid(raw) {
			t.Fatalf("raw member %q is not valid JSON", raw)
		}
	}
}

func FuzzAppendASCII(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte("{\"k€y\":\"a😀b\\u00e9\",\"n\":[1,\"\xff\"]}"))
	f.Add([]byte("\"\xed\xa0\x80\xf4\x90\x80\x80\""))
	f.Fuzz(func(t *testing.T, data []byte) {
		out := AppendASCII(nil, data) // must not panic, whatever data is
		for _, c := range out {
			if c >= utf8.RuneSelf {
				t.Fatalf("non-ASCII byte in %q", out)
			}
		}
		if !json.Valid(data) {
			return
		}
		var want, got any
		if err := json.Unmarshal(data, &want); err != nil {
			t.Skip() // valid but undecodable, e.g. a number out of float64 range
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("output %q does not decode: %v", out, err)
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("value changed: %#v != %#v", want, got)
		}
	})
}
