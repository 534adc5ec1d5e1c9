package dispatch

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/polymcp/polymcp/core/spec"
)

// requestState is what the core keeps between the rounds of a 2026-07-28
// multi round-trip request. The client holds it as an opaque string:
//
//	"v1." base64url(JSON payload) "." base64url(HMAC-SHA256(key, "v1." base64url(payload)))
//
// The MAC key is per Runtime (random unless Config.InputStateKey is set),
// so a state minted by one server is refused by another. The payload binds
// the method and a digest of the request's params (without _meta,
// inputResponses and requestState), so a state cannot be replayed on
// another tool or other arguments, and it expires (Config.InputStateTTL).
// It is signed, not encrypted: the answers of earlier rounds and the
// handler's own state are readable by the client that gave them.
type statePayload struct {
	Method  string                     `json:"m"`
	Digest  string                     `json:"d"`
	Expires int64                      `json:"e"` // Unix milliseconds
	Answers map[string]json.RawMessage `json:"r,omitempty"`
	State   []byte                     `json:"s,omitempty"`
}

const statePrefix = "v1."

// DefaultInputStateTTL is how long a requestState stays valid.
const DefaultInputStateTTL = 10 * time.Minute

// MaxRequestState bounds the requestState a client may send back.
const MaxRequestState = 256 << 10

var b64 = base64.RawURLEncoding

func newStateKey(given []byte) []byte {
	if len(given) > 0 {
		return bytes.Clone(given)
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key) // crypto/rand.Read never fails (Go 1.24+)
	return key
}

func (rt *Runtime) mac(signed string) []byte {
	m := hmac.New(sha256.New, rt.stateKey)
	m.Write([]byte(signed))
	return m.Sum(nil)
}

// sealState encodes and signs p.
func (rt *Runtime) sealState(p *statePayload) (string, error) {
	body, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	signed := statePrefix + b64.EncodeToString(body)
	return signed + "." + b64.EncodeToString(rt.mac(signed)), nil
}

// Reasons a requestState is refused; the client sees them in the -32602.
var (
	errStateMalformed = errors.New("malformed")
	errStateForged    = errors.New("integrity check failed")
	errStateExpired   = errors.New("expired")
	errStateOther     = errors.New("issued for another request")
)

// openState verifies s and returns its payload, which must have been
// issued for method and params digest.
func (rt *Runtime) openState(s, method, digest string) (*statePayload, error) {
	if len(s) > MaxRequestState || !strings.HasPrefix(s, statePrefix) {
		return nil, errStateMalformed
	}
	dot := strings.LastIndexByte(s, '.')
	if dot <= len(statePrefix) {
		return nil, errStateMalformed
	}
	sig, err := b64.DecodeString(s[dot+1:])
	if err != nil || !hmac.Equal(sig, rt.mac(s[:dot])) {
		return nil, errStateForged
	}
	body, err := b64.DecodeString(s[len(statePrefix):dot])
	if err != nil {
		return nil, errStateMalformed
	}
	var p statePayload
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, errStateMalformed
	}
	if p.Method != method || p.Digest != digest {
		return nil, errStateOther
	}
	if rt.now().UnixMilli() > p.Expires {
		return nil, errStateExpired
	}
	return &p, nil
}

// paramsDigest hashes the params of a request that identify it across
// rounds: every member but _meta, inputResponses and requestState, in a
// canonical form (sorted keys, numbers as written), so a client that
// re-serializes the same params gets the same digest.
func paramsDigest(params []byte) (string, error) {
	members := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(params)) > 0 {
		if err := json.Unmarshal(params, &members); err != nil {
			return "", err
		}
	}
	delete(members, "_meta")
	delete(members, spec.ParamInputResponses)
	delete(members, spec.ParamRequestState)
	canon := make(map[string]any, len(members))
	for k, raw := range members {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			return "", err
		}
		canon[k] = v
	}
	b, err := json.Marshal(canon)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return b64.EncodeToString(sum[:]), nil
}
