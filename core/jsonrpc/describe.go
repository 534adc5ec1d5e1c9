package jsonrpc

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
)

// TypeError is a member of the wrong JSON type met by Unmarshal or
// UnmarshalDecoded. It replaces the JSON library's own text, which quotes
// the input around the offset and names Go types: neither belongs in an
// answer to a client.
type TypeError struct {
	Path []string // member names and "[i]" steps from the decoded value
	Want string   // what the member must be, e.g. "a string"
	Got  string   // what it is, e.g. "a number"; empty when unknown
}

// Error describes the error with the decoded value called "value".
func (e *TypeError) Error() string { return e.At("value") }

// At describes the error with the decoded value called root, e.g.
// `params.uri must be a string (got a number)`.
func (e *TypeError) At(root string) string {
	var b strings.Builder
	b.WriteString(root)
	for _, step := range e.Path {
		switch {
		case strings.HasPrefix(step, "["):
			b.WriteString(step)
		case isPlainName(step):
			b.WriteByte('.')
			b.WriteString(step)
		default:
			b.WriteByte('[')
			b.WriteString(strconv.Quote(step))
			b.WriteByte(']')
		}
	}
	b.WriteString(" must be ")
	b.WriteString(e.Want)
	if e.Got != "" {
		b.WriteString(" (got ")
		b.WriteString(e.Got)
		b.WriteByte(')')
	}
	return b.String()
}

// Describe returns err as a message for a client, naming the decoded value
// root: a *TypeError is spelled out by At, a parse error keeps its message,
// and anything else (an UnmarshalJSON method's own error) is returned as is.
func Describe(err error, root string) string {
	var te *TypeError
	if errors.As(err, &te) {
		return te.At(root)
	}
	var pe *Error
	if errors.As(err, &pe) {
		return root + ": " + pe.Message
	}
	return root + ": " + err.Error()
}

// typeError turns the JSON library's error for data into a *TypeError (or,
// for text that is not JSON, the scanner's parse error). sonic's own error
// offsets are unreliable once it has skipped a member, so the failed decode
// is repeated with encoding/json, whose UnmarshalTypeError ends exactly at
// the offending value; errors are rare enough for that second pass.
func typeError(data []byte, v any, err error) error {
	if perr := Valid(data, Limits{}); perr != nil {
		return perr
	}
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer {
		return err
	}
	return stdTypeError(data, json.Unmarshal(data, reflect.New(t.Elem()).Interface()))
}

// stdTypeError is typeError for encoding/json's error err in decoding the
// valid JSON text data (nil if it decoded after all).
func stdTypeError(data []byte, err error) error {
	var ut *json.UnmarshalTypeError
	switch {
	case errors.As(err, &ut):
		te := &TypeError{Want: describeType(ut.Type)}
		if ut.Offset > 0 && ut.Offset <= int64(len(data)) {
			var start int
			te.Path, start = pathAt(data, int(ut.Offset)-1)
			te.Got = describeValue(data[start])
		}
		return te
	case err != nil:
		return err // an UnmarshalJSON method's own error
	default:
		return &TypeError{Want: "of the expected shape"}
	}
}

// describeType names what a Go type accepts, in JSON's terms.
func describeType(t reflect.Type) string {
	if t == nil {
		return "a valid value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer in range"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	default:
		return "a valid value"
	}
}

// describeValue names the JSON type of the value starting with byte c.
func describeValue(c byte) string {
	switch c {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// pathAt returns the steps from the root of the valid JSON text data to the
// innermost value that starts at or contains offset pos, and the offset
// where that value starts.
func pathAt(data []byte, pos int) (path []string, start int) {
	start = skipWS(data, 0)
	for start < pos && start < len(data) && (data[start] == '{' || data[start] == '[') {
		step, at, ok := memberAt(data, start, pos)
		if !ok {
			break
		}
		path, start = append(path, step), at
	}
	return path, min(start, len(data)-1)
}

// memberAt finds, in the object or array that opens at offset open, the
// member whose value contains offset pos: its step in a path and where its
// value starts.
func memberAt(data []byte, open, pos int) (step string, at int, ok bool) {
	object := data[open] == '{'
	i := open + 1
	for n := 0; ; n++ {
		i = skipWS(data, i)
		if i >= len(data) || data[i] == '}' || data[i] == ']' {
			return "", 0, false
		}
		if object {
			end, esc, _ := scanString(data, i)
			name := data[i+1 : end-1]
			if esc {
				name = appendUnescaped(nil, name)
			}
			step = string(name)
			i = skipWS(data, skipWS(data, end)+1) // past the colon
		} else {
			step = "[" + strconv.Itoa(n) + "]"
		}
		// data is valid JSON already; the limits only need to not get in the way.
		s := scanner{data: data, pos: i, lim: Limits{MaxDepth: len(data) + 1, MaxNumberDigits: len(data) + 1}}
		if s.value(0) != nil {
			return "", 0, false
		}
		if pos < s.pos {
			return step, i, true
		}
		i = skipWS(data, s.pos)
		if i < len(data) && data[i] == ',' {
			i++
		}
	}
}

// isPlainName reports whether a member name reads well after a dot.
func isPlainName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}
