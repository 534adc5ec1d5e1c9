package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
	"unsafe"

	"github.com/bytedance/sonic"
	"github.com/bytedance/sonic/decoder"
	"github.com/bytedance/sonic/encoder"
)

// The envelope encoders append to dst and never re-encode the bytes they are
// given: results and params were encoded once by the layer that knows their
// type, and copying them is all that is left to do. Raw arguments must be
// valid JSON; a nil or empty raw value is written as null.

const envelopeHead = `{"jsonrpc":"2.0"`

// AppendID appends id as JSON; an absent id is written as null, since an
// answer must always carry an id member.
func AppendID(dst []byte, id ID) []byte {
	switch id.kind {
	case idString:
		return AppendString(dst, id.str)
	case idNumber:
		return strconv.AppendInt(dst, id.num, 10)
	}
	return append(dst, "null"...)
}

// MarshalResponse encodes {"jsonrpc":"2.0","id":<id>,"result":<result>}
// exactly as AppendResponse of Marshal(result) would, in one allocation
// and one copy instead of two of each: the response is encoded into a
// pooled scratch buffer and copied once into one of the right size. For a
// 64 KiB result the saved allocation was the larger cost, since a fresh
// buffer that size costs more to fault in and clear than to fill.
func MarshalResponse(id ID, result any) ([]byte, error) {
	var out []byte
	err := WithResponse(id, result, func(msg []byte) { out = bytes.Clone(msg) })
	return out, err
}

// WithResponse encodes the response as MarshalResponse does into a pooled
// buffer and hands it to use, which must not keep it: for a receiver that
// copies what it is given anyway (a stdio writer's queue), the response
// costs no allocation of its size at all.
func WithResponse(id ID, result any, use func(msg []byte)) error {
	var err error
	inScratch(id, func(sp *[]byte) bool {
		// Encoded into the pooled slice where it lies: the address of a
		// local copy would escape to the heap through EncodeInto.
		err = encoder.EncodeInto(sp, result, encoderOptions)
		return err == nil
	}, use)
	return err
}

// WithResponseRare is WithResponse for a result of a type encoded a few
// times in a process's life (initialize's): encoding/json encodes it,
// where sonic would first compile an encoder for the type, megabytes of
// garbage and milliseconds at start (see UnmarshalRare). The bytes are
// Marshal's (map keys sorted, no HTML escaping, MarshalJSON output
// compacted, invalid UTF-8 replaced), except that U+2028 and U+2029 are
// escaped, which JSON allows either way.
func WithResponseRare(id ID, result any, use func(msg []byte)) error {
	var err error
	inScratch(id, func(sp *[]byte) bool {
		w := bytes.NewBuffer(*sp)
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		err = enc.Encode(result)
		*sp = bytes.TrimSuffix(w.Bytes(), []byte{'\n'})
		return err == nil
	}, use)
	return err
}

// WithAppended is WithResponse for a result that appendResult writes
// itself, for types a hand-written encoder knows. It reports false, having
// used nothing, when appendResult declines the value.
func WithAppended(id ID, appendResult func(dst []byte) ([]byte, bool), use func(msg []byte)) bool {
	return inScratch(id, func(sp *[]byte) bool {
		b, ok := appendResult(*sp)
		*sp = b
		return ok
	}, use)
}

// inScratch writes a response's head into a pooled buffer, has fill append
// the result, and hands the response to use unless fill reports false.
func inScratch(id ID, fill func(sp *[]byte) bool, use func(msg []byte)) bool {
	sp := scratch.Get().(*[]byte)
	*sp = append((*sp)[:0], envelopeHead+`,"id":`...)
	*sp = AppendID(*sp, id)
	*sp = append(*sp, `,"result":`...)
	ok := fill(sp)
	if ok {
		*sp = append(*sp, '}')
		use(*sp)
	}
	if cap(*sp) <= maxScratch {
		*sp = (*sp)[:0]
		scratch.Put(sp)
	}
	return ok
}

// scratch recycles WithResponse's buffers, up to maxScratch.
var scratch = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

const maxScratch = 1 << 20

// AppendResponse appends {"jsonrpc":"2.0","id":<id>,"result":<result>}.
func AppendResponse(dst []byte, id ID, result []byte) []byte {
	dst = append(dst, envelopeHead+`,"id":`...)
	dst = AppendID(dst, id)
	dst = append(dst, `,"result":`...)
	dst = appendRaw(dst, result)
	return append(dst, '}')
}

// internalError stands in for a nil *Error so that a bug upstream still
// yields a well-formed answer.
var internalError = Error{Code: CodeInternalError, Message: "internal error"}

// AppendError appends an error response. Data is written when it is not nil
// and encodes to valid JSON, and silently left out otherwise: the error
// itself matters more than its detail.
func AppendError(dst []byte, id ID, e *Error) []byte {
	dst = append(dst, envelopeHead+`,"id":`...)
	dst = AppendID(dst, id)
	dst = append(dst, `,"error":`...)
	dst = AppendErrorObject(dst, e)
	return append(dst, '}')
}

// AppendErrorObject appends the error object alone, {"code","message",
// "data"}, as a response carries it (and a failed task inlines it); nil is
// an internal error.
func AppendErrorObject(dst []byte, e *Error) []byte {
	if e == nil {
		e = &internalError
	}
	dst = append(dst, `{"code":`...)
	dst = strconv.AppendInt(dst, e.Code, 10)
	dst = append(dst, `,"message":`...)
	dst = AppendString(dst, e.Message)
	if data := encodeData(e.Data); data != nil {
		dst = append(dst, `,"data":`...)
		dst = append(dst, data...)
	}
	return append(dst, '}')
}

// encodeData returns the JSON of an error's data, or nil to leave it out.
func encodeData(data any) []byte {
	var raw []byte
	switch d := data.(type) {
	case nil:
		return nil
	case RawJSON:
		raw = d
	case json.RawMessage:
		raw = d
	default:
		b, err := Marshal(d)
		if err != nil {
			return nil
		}
		return b
	}
	// Raw data skipped the encoder, so it is checked here instead.
	if Valid(raw, Limits{}) != nil {
		return nil
	}
	return raw
}

// AppendNotification appends a notification; params is left out when nil or empty.
func AppendNotification(dst []byte, method string, params []byte) []byte {
	dst = append(dst, envelopeHead+`,"method":`...)
	dst = AppendString(dst, method)
	return appendParams(dst, params)
}

// AppendRequest appends a request; params is left out when nil or empty.
func AppendRequest(dst []byte, id ID, method string, params []byte) []byte {
	return appendParams(AppendRequestHead(dst, id, method), params)
}

// AppendRequestHead appends a request up to its method, for a caller that
// encodes params in place: `,"params":`, the object and '}' are then its
// own to append.
func AppendRequestHead(dst []byte, id ID, method string) []byte {
	dst = append(dst, envelopeHead+`,"id":`...)
	dst = AppendID(dst, id)
	dst = append(dst, `,"method":`...)
	return AppendString(dst, method)
}

func appendParams(dst, params []byte) []byte {
	if len(params) > 0 {
		dst = append(dst, `,"params":`...)
		dst = append(dst, params...)
	}
	return append(dst, '}')
}

func appendRaw(dst, raw []byte) []byte {
	if len(raw) == 0 {
		return append(dst, "null"...)
	}
	return append(dst, raw...)
}

// RawJSON is an already encoded JSON value. Decode uses it for an error's
// data so that the bytes reach the layer that knows their type untouched.
type RawJSON []byte

// MarshalJSON returns r itself, or null when r is empty.
func (r RawJSON) MarshalJSON() ([]byte, error) {
	if len(r) == 0 {
		return []byte("null"), nil
	}
	return r, nil
}

// UnmarshalJSON stores a copy of data, which the decoder may reuse.
func (r *RawJSON) UnmarshalJSON(data []byte) error {
	*r = append((*r)[:0], data...)
	return nil
}

// api is encoding/json's behaviour (sonic.ConfigStd) less HTML escaping,
// which only matters for JSON embedded in HTML. Map keys stay sorted so the
// wire is deterministic (cacheable results, literal transcripts).
var api = sonic.Config{
	SortMapKeys:      true,
	CompactMarshaler: true,
	CopyString:       true,
	ValidateString:   true,
}.Froze()

// apiOwn is api for values whose json.Marshaler members (json.RawMessage)
// hold polymcp's own encodings, compact and valid already: they are copied
// as they are, where api runs encoding/json.Compact over each (half of the
// client's CPU for a 64 KiB call).
var apiOwn = sonic.Config{
	SortMapKeys:             true,
	CopyString:              true,
	ValidateString:          true,
	NoValidateJSONMarshaler: true,
}.Froze()

// encoderOptions are api's, for encoding into a buffer of ours: a test
// holds MarshalResponse to Marshal's output.
const encoderOptions = encoder.SortMapKeys | encoder.CompactMarshaler | encoder.ValidateString

// Marshal encodes v. It and the Unmarshal functions are polymcp's only JSON
// entry points, so that every package encodes and decodes the same way.
func Marshal(v any) ([]byte, error) { return api.Marshal(v) }

// MarshalOwn is Marshal for a value whose json.RawMessage members (and
// other json.Marshaler ones) are outputs of Marshal: they are written as
// they are, neither compacted nor checked again.
func MarshalOwn(v any) ([]byte, error) { return apiOwn.Marshal(v) }

// Unmarshal decodes data into v with encoding/json semantics (numbers in an
// interface value become float64). A member of the wrong type is reported as
// a *TypeError, text that is not JSON as a parse *Error.
func Unmarshal(data []byte, v any) error {
	if err := unmarshal(string(data), v, decoder.OptionCopyString|decoder.OptionValidateString); err != nil {
		return typeError(data, v, err)
	}
	return nil
}

// decoders recycles sonic's decoder state, which sonic.Unmarshal allocates
// afresh on every call.
var decoders = sync.Pool{New: func() any { return decoder.NewDecoder("") }}

// unmarshal decodes the JSON text s into v with the decoder options opts
// (the decoding options of the api config, with or without the UTF-8 check).
func unmarshal(s string, v any, opts decoder.Options) error {
	d := decoders.Get().(*decoder.Decoder)
	d.Reset(s)
	d.SetOptions(opts)
	err := d.Decode(v)
	if err == nil {
		err = d.CheckTrailings()
	}
	d.Reset("") // the pool must not keep the text alive
	decoders.Put(d)
	return err
}

// UnmarshalDecoded is Unmarshal for part of a message that Decode accepted
// (its params, _meta or arguments). Decode has checked every string's UTF-8,
// so it is not checked again: that second pass was a tenth of a small
// call's CPU time. A message's bytes are never modified once decoded (a
// transport hands them over), so they are read in place, and a decoded
// string with no escapes shares them rather than being copied: copying a
// 64 KiB argument cost as much as the rest of its call, and tripled the
// garbage it left. A value kept past its message therefore keeps the
// message's bytes alive; strings.Clone a small piece of a large message to
// keep only that. Bytes from anywhere else must go through Unmarshal.
func UnmarshalDecoded(data []byte, v any) error {
	if err := unmarshal(unsafe.String(unsafe.SliceData(data), len(data)), v, 0); err != nil {
		return typeError(data, v, err)
	}
	return nil
}

// ownedLimits bound JSON a host hands over (a handler's result through the
// C ABI): client input's limits, but deep structured results are the
// host's business.
var ownedLimits = Limits{MaxDepth: 1 << 12, MaxNumberDigits: 1 << 10}

// UnmarshalOwned is Unmarshal for bytes handed over to the decoded value:
// the caller never modifies or reuses data afterwards (a copy made for the
// purpose, say). data is checked by the scanner, which is faster than the
// JSON library's own UTF-8 pass, and decoded strings point into data
// instead of being copied: for a 64 KiB result that was two copies and a
// slower validation.
func UnmarshalOwned(data []byte, v any) error {
	if err := Valid(data, ownedLimits); err != nil {
		return err
	}
	if err := unmarshal(unsafe.String(unsafe.SliceData(data), len(data)), v, 0); err != nil {
		return typeError(data, v, err)
	}
	return nil
}

// UnmarshalRare is UnmarshalDecoded for a type decoded a few times in a
// process's life (a definition a host registers, initialize's params):
// encoding/json decodes it. sonic first compiles machine code for each
// type it decodes, which for one tool definition left 3 MiB of garbage
// and held the heap of a Node or Python host's start, and its resident
// memory, megabytes above their steady size. Like UnmarshalDecoded, it
// takes text that Decode or Valid accepted (encoding/json would replace
// invalid UTF-8 where they refuse it); its errors are Unmarshal's.
func UnmarshalRare(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return stdTypeError(data, err)
	}
	return nil
}
