package cursor

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
)

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

func TestRoundTrip(t *testing.T) {
	c := NewCodec(nil)
	for _, method := range []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list", ""} {
		for _, version := range []uint64{0, 1, 127, 128, 1 << 40, math.MaxUint64} {
			for _, offset := range []int{0, 1, 50, 1000, 1 << 31, math.MaxInt} {
				cur := c.Encode(method, version, offset)
				if len(cur) > maxLen || strings.Trim(cur, alphabet) != "" {
					t.Fatalf("Encode(%q, %d, %d) = %q: too long or not URL-safe raw base64", method, version, offset, cur)
				}
				got, err := c.Decode(cur, method, version)
				if err != nil || got != offset {
					t.Fatalf("Decode(Encode(%q, %d, %d)) = %d, %v", method, version, offset, got, err)
				}
			}
		}
	}
}

func TestLength(t *testing.T) {
	c := NewCodec(nil)
	if got := len(c.Encode("tools/list", 3, 20)); got != 14 {
		t.Errorf("small cursor is %d characters, want 14", got)
	}
	// A nanosecond timestamp as version and a large offset still fit 32.
	if got := len(c.Encode("tools/list", 1<<62, 1<<34)); got > 32 {
		t.Errorf("timestamp cursor is %d characters, want <= 32", got)
	}
	if got := len(c.Encode("tools/list", math.MaxUint64, math.MaxInt)); got > 38 {
		t.Errorf("largest cursor is %d characters, want <= 38", got)
	}
}

func TestWrongMethod(t *testing.T) {
	c := NewCodec(nil)
	cur := c.Encode("tools/list", 1, 10)
	for _, method := range []string{"prompts/list", "tools/lis", "tools/list ", ""} {
		_, err := c.Decode(cur, method, 1)
		if !errors.Is(err, ErrInvalid) || errors.Is(err, ErrExpired) {
			t.Errorf("Decode for %q: %v, want ErrInvalid", method, err)
		}
	}
}

func TestVersionChanged(t *testing.T) {
	c := NewCodec(nil)
	cur := c.Encode("tools/list", 7, 10)
	for _, version := range []uint64{8, 1000, 6, 0} {
		_, err := c.Decode(cur, "tools/list", version)
		if !errors.Is(err, ErrExpired) || !errors.Is(err, ErrInvalid) {
			t.Errorf("Decode at version %d: %v, want ErrExpired", version, err)
		}
	}
	if errors.Is(ErrInvalid, ErrExpired) {
		t.Error("ErrInvalid is ErrExpired")
	}
}

func TestKeys(t *testing.T) {
	key := []byte("a shared secret of some length..")
	a, b := NewCodec(key), NewCodec(key)
	key[0] ^= 1 // NewCodec copies the key
	cur := a.Encode("tools/list", 1, 5)
	if got, err := b.Decode(cur, "tools/list", 1); err != nil || got != 5 {
		t.Errorf("same key: %d, %v", got, err)
	}
	for _, other := range []*Codec{NewCodec(key), NewCodec(nil), NewCodec([]byte{})} {
		if _, err := other.Decode(cur, "tools/list", 1); !errors.Is(err, ErrInvalid) || errors.Is(err, ErrExpired) {
			t.Errorf("other key: %v, want ErrInvalid", err)
		}
	}
}

func TestTampered(t *testing.T) {
	c := NewCodec(nil)
	cur := c.Encode("resources/list", 42, 300)
	for i := range len(cur) {
		for j := range len(alphabet) {
			if alphabet[j] == cur[i] {
				continue
			}
			bad := cur[:i] + alphabet[j:j+1] + cur[i+1:]
			if _, err := c.Decode(bad, "resources/list", 42); !errors.Is(err, ErrInvalid) || errors.Is(err, ErrExpired) {
				t.Fatalf("Decode(%q) with byte %d changed: %v", bad, i, err)
			}
		}
	}
	// Every bit of the decoded bytes, re-encoded canonically.
	raw, _ := base64.RawURLEncoding.DecodeString(cur)
	for i := range raw {
		for bit := range 8 {
			b := append([]byte(nil), raw...)
			b[i] ^= 1 << bit
			if _, err := c.Decode(base64.RawURLEncoding.EncodeToString(b), "resources/list", 42); !errors.Is(err, ErrInvalid) {
				t.Fatalf("bit %d of byte %d flipped: %v", bit, i, err)
			}
		}
	}
}

func TestTruncatedAndExtended(t *testing.T) {
	c := NewCodec(nil)
	cur := c.Encode("tools/list", 1, 99)
	for i := range len(cur) {
		if _, err := c.Decode(cur[:i], "tools/list", 1); !errors.Is(err, ErrInvalid) {
			t.Errorf("Decode(%q): %v", cur[:i], err)
		}
	}
	for _, bad := range []string{cur + "A", cur + "AA", cur + "AAAA", "A" + cur} {
		if _, err := c.Decode(bad, "tools/list", 1); !errors.Is(err, ErrInvalid) {
			t.Errorf("Decode(%q): %v", bad, err)
		}
	}
}

func TestGarbled(t *testing.T) {
	c := NewCodec(nil)
	cur := c.Encode("tools/list", 1, 99)
	std := base64.RawStdEncoding.EncodeToString(mustDecode(t, cur))
	tests := []string{
		"",
		"!!!!",
		"not a cursor",
		cur + "=",
		cur[:5] + "\n" + cur[5:],
		cur[:5] + "\r" + cur[5:],
		cur[:5] + " " + cur[5:],
		strings.ReplaceAll(strings.ReplaceAll(cur, "-", "+"), "_", "/"),
		std,
		"eyJvZmZzZXQiOjEwfQ", // base64 of {"offset":10}
		strings.Repeat("A", 1<<20),
		"AAAAAAAAAAAAAA",
	}
	for _, bad := range tests {
		if bad == cur {
			continue // the standard-alphabet variants equal cur when it has neither '-' nor '_'
		}
		if _, err := c.Decode(bad, "tools/list", 1); !errors.Is(err, ErrInvalid) || errors.Is(err, ErrExpired) {
			t.Errorf("Decode(%.40q): %v, want ErrInvalid", bad, err)
		}
	}
}

// TestAuthenticPayloads checks the payload checks behind the tag: a cursor
// with a correct tag but a malformed or out-of-range payload is invalid.
func TestAuthenticPayloads(t *testing.T) {
	c := NewCodec(nil)
	sign := func(payload []byte) string {
		return base64.RawURLEncoding.EncodeToString(c.appendTag(append([]byte(nil), payload...), "tools/list", payload))
	}
	huge := binary.AppendUvarint([]byte{1}, math.MaxUint64) // offset beyond MaxInt
	tests := map[string][]byte{
		"offset over MaxInt": huge,
		"missing offset":     {1},
		"trailing byte":      {1, 2, 3},
		"truncated varint":   {1, 0x80},
		"overlong varint":    append([]byte{1}, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
	}
	for name, payload := range tests {
		cur := sign(payload)
		if _, err := c.Decode(cur, "tools/list", 1); !errors.Is(err, ErrInvalid) || errors.Is(err, ErrExpired) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	if got, err := c.Decode(sign([]byte{1, 2}), "tools/list", 1); err != nil || got != 2 {
		t.Errorf("well-formed payload: %d, %v", got, err)
	}
}

func TestPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"negative offset": func() { NewCodec(nil).Encode("tools/list", 1, -1) },
		"zero Codec":      func() { new(Codec).Encode("tools/list", 1, 0) },
		"zero Codec decode": func() {
			_, _ = new(Codec).Decode(NewCodec(nil).Encode("m", 1, 0), "m", 1)
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestConcurrent(t *testing.T) {
	c := NewCodec(nil)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				if got, err := c.Decode(c.Encode("tools/list", uint64(g), i), "tools/list", uint64(g)); err != nil || got != i {
					t.Errorf("goroutine %d: %d, %v", g, got, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func mustDecode(t *testing.T, cur string) []byte {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(cur)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzDecode checks that Decode never panics and accepts only cursors
// exactly as Encode writes them.
func FuzzDecode(f *testing.F) {
	c := NewCodec([]byte("fuzz key"))
	f.Add(c.Encode("tools/list", 1, 0), "tools/list", uint64(1))
	f.Add(c.Encode("prompts/list", 9, 1<<40), "prompts/list", uint64(9))
	f.Add(c.Encode("tools/list", 1, 0), "prompts/list", uint64(1))
	f.Add("", "tools/list", uint64(0))
	f.Add("AAAAAAAAAAAAAA", "tools/list", uint64(0))
	f.Add("!!", "", uint64(math.MaxUint64))
	f.Fuzz(func(t *testing.T, cur, method string, version uint64) {
		off, err := c.Decode(cur, method, version)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Decode(%q): error %v is not ErrInvalid", cur, err)
			}
			return
		}
		if off < 0 || c.Encode(method, version, off) != cur {
			t.Fatalf("Decode(%q) = %d, but Encode gives %q", cur, off, c.Encode(method, version, off))
		}
	})
}
