package client

import (
	"encoding/json"
	"slices"

	"github.com/polymcp/polymcp/core/jsonrpc"
	"github.com/polymcp/polymcp/core/spec"
)

// appendMembers appends members as a JSON object, keys sorted, without the
// map encoder's reflection: strings are escaped, nested maps are appended
// alike, and anything else is encoded. Trusted members, a request's own
// (their raw values outputs of jsonrpc.Marshal already), are encoded as
// jsonrpc.MarshalOwn does, raw values as they are; a caller's (map
// arguments) as jsonrpc.Marshal does, raw values checked and compacted: a
// line break in one would break stdio's framing. A request's params are such
// maps; encoding them through the map encoder was most of the client's CPU
// for a small call.
func appendMembers(dst []byte, members map[string]any, trusted bool) ([]byte, error) {
	var small [8]string
	keys := small[:0]
	for k := range members {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonrpc.AppendString(dst, k)
		dst = append(dst, ':')
		var err error
		if dst, err = appendValue(dst, members[k], trusted); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

func appendValue(dst []byte, v any, trusted bool) ([]byte, error) {
	switch v := v.(type) {
	case json.RawMessage:
		if len(v) == 0 {
			return append(dst, "null"...), nil
		}
		if trusted {
			return append(dst, v...), nil
		}
	case string:
		return jsonrpc.AppendString(dst, v), nil
	case spec.Meta:
		return appendMembers(dst, v, trusted)
	case map[string]any:
		return appendMembers(dst, v, trusted)
	}
	marshal := jsonrpc.MarshalOwn // raw values inside are outputs of Marshal
	if !trusted {
		marshal = jsonrpc.Marshal
	}
	raw, err := marshal(v)
	return append(dst, raw...), err
}

// rawSize is the bytes members' raw values and strings take as they are:
// most of a request, whose frame is allocated at once.
func rawSize(members map[string]any) int {
	n := 0
	for k, v := range members {
		n += len(k) + 4
		switch v := v.(type) {
		case json.RawMessage:
			n += len(v)
		case string:
			n += len(v) + 2
		}
	}
	return n
}
