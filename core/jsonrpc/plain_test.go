package jsonrpc

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// The bulk scans against their definitions, a byte at a time.
func plainRef(b []byte) int {
	for i, c := range b {
		if c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return i
		}
	}
	return len(b)
}

func asciiRef(b []byte) int {
	for i, c := range b {
		if c >= utf8.RuneSelf {
			return i
		}
	}
	return len(b)
}

// scanModes runs f with the vector scans on (where the CPU has them) and
// off, so that the word loops are checked on every machine.
func scanModes(t *testing.T, f func(t *testing.T)) {
	t.Run("vector", f)
	t.Run("words", func(t *testing.T) {
		defer withoutVectors()()
		f(t)
	})
}

// Every byte value at every offset of inputs around the block sizes, so
// that each lane of each block, the 64-, 32- and 8-byte loops and the tail
// all see every kind of byte.
func TestPlainAndASCIIPrefix(t *testing.T) {
	scanModes(t, func(t *testing.T) {
		for _, n := range []int{0, 1, 7, 8, 31, 32, 33, 63, 64, 65, 95, 96, 127, 128, 200} {
			base := []byte(strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789 {}:,", 8)[:n])
			assert.Equal(t, n, plainLen(base), "clean %d", n)
			assert.Equal(t, n, asciiPrefix(base), "clean %d", n)
			for at := 0; at < n; at++ {
				for c := 0; c < 256; c++ {
					b := append([]byte(nil), base...)
					b[at] = byte(c)
					if got, want := plainLen(b), plainRef(b); got != want {
						t.Fatalf("plainLen: %d bytes, 0x%02x at %d: %d, want %d", n, c, at, got, want)
					}
					checkPlainPrefix(t, b)
					if got, want := asciiPrefix(b), asciiRef(b); got != want {
						t.Fatalf("asciiPrefix: %d bytes, 0x%02x at %d: %d, want %d", n, c, at, got, want)
					}
				}
			}
		}
	})
}

// A flagged byte early in a block must win over later ones in it and in
// the next block.
func TestPlainFirstOfSeveral(t *testing.T) {
	scanModes(t, func(t *testing.T) {
		b := []byte(strings.Repeat("x", 130))
		b[100], b[70], b[40], b[35] = '"', 0x01, 0xc3, '\\'
		assert.Equal(t, 35, plainLen(b))
		assert.Equal(t, 40, asciiPrefix(b))
	})
}

// checkPlainPrefix holds plainPrefix to its contract: all it skips is
// plain, and it stops at a byte that needs a look or within 8 bytes of the
// end.
func checkPlainPrefix(t *testing.T, b []byte) {
	t.Helper()
	got, want := plainPrefix(b), plainRef(b)
	if got > want || got < want && got+8 <= len(b) {
		t.Fatalf("plainPrefix(%q) = %d; the first byte that needs a look is at %d", b, got, want)
	}
}

func FuzzPlainLen(f *testing.F) {
	f.Add([]byte(strings.Repeat("a", 70) + `"`))
	f.Add([]byte(strings.Repeat("é", 40)))
	f.Add([]byte("short\\"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := plainLen(b), plainRef(b); got != want {
			t.Fatalf("plainLen(%q) = %d, want %d", b, got, want)
		}
		if got, want := asciiPrefix(b), asciiRef(b); got != want {
			t.Fatalf("asciiPrefix(%q) = %d, want %d", b, got, want)
		}
		checkPlainPrefix(t, b)
	})
}

func BenchmarkScanString64KiB(b *testing.B) {
	data := []byte(`"` + strings.Repeat("abcdefgh", 8<<10) + `"`)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if end, _, p := scanString(data, 0); p != probNone || end != len(data) {
			b.Fatal(end, p)
		}
	}
}

func BenchmarkAppendString64KiB(b *testing.B) {
	s := strings.Repeat("abcdefgh", 8<<10)
	buf := make([]byte, 0, len(s)+2)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		buf = AppendString(buf[:0], s)
	}
}
