package jsonrpc

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// The SWAR scan must find exactly the first byte that needs a look.
func TestSpecialFindsFirstByte(t *testing.T) {
	needsLook := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80 }
	interesting := []byte{0, 0x1f, 0x20, 0x21, '"', '#', '\\', ']', 0x7f, 0x80, 0xff, 'a', 0x01, 0x02}
	r := rand.New(rand.NewPCG(5, 6))
	var b [8]byte
	for range 200000 {
		for i := range b {
			if r.IntN(2) == 0 {
				b[i] = interesting[r.IntN(len(interesting))]
			} else {
				b[i] = byte(r.Uint32())
			}
		}
		want := 8
		for i, c := range b {
			if needsLook(c) {
				want = i
				break
			}
		}
		m := special(binary.LittleEndian.Uint64(b[:]))
		if got := bits.TrailingZeros64(m) / 8; got != want {
			t.Fatalf("%q: first byte needing a look at %d, special says %d", b[:], want, got)
		}
	}
}
