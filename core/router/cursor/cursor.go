// Package cursor issues and checks the opaque pagination cursors of the MCP
// list methods (tools/list, prompts/list, resources/list,
// resources/templates/list).
//
// A cursor holds a catalogue version and an offset, authenticated with an
// HMAC-SHA256 tag (truncated to 64 bits) that also covers the method it was
// issued for. Decode rejects a cursor that was forged, garbled or issued for
// another method with [ErrInvalid], and an authentic cursor issued for
// another catalogue version with [ErrExpired]; the caller answers either with
// JSON-RPC error -32602 "invalid cursor". Cursors are short URL-safe base64
// strings: 14 characters for small numbers, never more than 38.
//
// A cursor is authenticated, not encrypted: whoever holds one can read the
// version and offset in it, but cannot make another.
package cursor

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

var (
	// ErrInvalid reports a cursor this Codec did not issue for the method:
	// bad encoding, bad tag or another method.
	ErrInvalid = errors.New("cursor: invalid cursor")
	// ErrExpired reports an authentic cursor issued for another catalogue
	// version, normally an older one. errors.Is(ErrExpired, ErrInvalid)
	// holds, so callers that do not care about the difference test only
	// for ErrInvalid.
	ErrExpired = fmt.Errorf("%w: catalogue version changed", ErrInvalid)
)

const (
	tagLen     = 8                             // truncated HMAC-SHA256, in bytes
	maxPayload = 2 * binary.MaxVarintLen64     // version and offset as uvarints
	maxRaw     = maxPayload + tagLen           // longest decoded cursor
	keyLen     = 32                            // random key length
	domain     = "github.com/polymcp/cursor/1" // separates our tags from other HMAC uses of a shared key
)

// maxLen is the longest cursor Encode produces.
var maxLen = base64.RawURLEncoding.EncodedLen(maxRaw)

var enc = base64.RawURLEncoding.Strict()

// Codec encodes and decodes cursors under one secret key. It is safe for
// concurrent use. Create it with NewCodec; the zero Codec panics.
type Codec struct {
	key []byte
}

// NewCodec returns a Codec using a copy of key. With a nil or empty key it
// draws a random 32-byte key from crypto/rand, so its cursors stop being
// valid when the process restarts. Servers that share cursors between
// processes pass the same secret key to each.
func NewCodec(key []byte) *Codec {
	if len(key) == 0 {
		key = make([]byte, keyLen)
		rand.Read(key) // never fails; crashes the program if it could
	} else {
		key = bytes.Clone(key)
	}
	return &Codec{key: key}
}

// Encode returns the cursor for offset in the listing of method at catalogue
// version. It panics if offset is negative.
func (c *Codec) Encode(method string, version uint64, offset int) string {
	if offset < 0 {
		panic("cursor: negative offset")
	}
	var buf [maxRaw]byte
	b := binary.AppendUvarint(buf[:0], version)
	b = binary.AppendUvarint(b, uint64(offset))
	payload := b
	b = c.appendTag(b, method, payload)
	return enc.EncodeToString(b)
}

// Decode returns the offset in cursor if this Codec issued it for method at
// version. It returns ErrExpired for an authentic cursor of another version
// and ErrInvalid for anything else, including the empty string, which
// Encode never produces.
func (c *Codec) Decode(cursor, method string, version uint64) (int, error) {
	if len(cursor) == 0 || len(cursor) > maxLen || !isBase64URL(cursor) {
		return 0, ErrInvalid
	}
	var buf [maxRaw]byte
	n, err := enc.Decode(buf[:], []byte(cursor))
	if err != nil || n <= tagLen {
		return 0, ErrInvalid
	}
	payload, tag := buf[:n-tagLen], buf[n-tagLen:n]
	var want [tagLen]byte
	if !hmac.Equal(tag, c.appendTag(want[:0], method, payload)) {
		return 0, ErrInvalid
	}
	v, k := binary.Uvarint(payload)
	if k <= 0 {
		return 0, ErrInvalid
	}
	off, k2 := binary.Uvarint(payload[k:])
	if k2 <= 0 || k+k2 != len(payload) || off > math.MaxInt {
		return 0, ErrInvalid
	}
	if v != version {
		return 0, ErrExpired
	}
	return int(off), nil
}

// appendTag appends the truncated tag of payload issued for method.
func (c *Codec) appendTag(dst []byte, method string, payload []byte) []byte {
	if len(c.key) == 0 {
		panic("cursor: Codec not created by NewCodec")
	}
	h := hmac.New(sha256.New, c.key)
	var n [binary.MaxVarintLen64]byte
	h.Write([]byte(domain))
	h.Write(binary.AppendUvarint(n[:0], uint64(len(method))))
	h.Write([]byte(method))
	h.Write(payload)
	var sum [sha256.Size]byte
	return append(dst, h.Sum(sum[:0])[:tagLen]...)
}

// isBase64URL reports whether s uses only the URL-safe base64 alphabet; the
// decoder alone would skip CR and LF.
func isBase64URL(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
