package jsonrpc

import (
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

// The two scans every string byte of a message goes through: the decoder
// validating it and the encoder copying it out. A 64 KiB argument spent a
// quarter of its call in them a word at a time; where the CPU has vectors
// (plain_amd64.s) whole blocks go first, and the word loop finishes.

// plainLen returns the length of the longest prefix of b that a JSON string
// holds as is: no quote, backslash, control character or non-ASCII byte.
func plainLen(b []byte) int {
	i := 0
	if len(b) >= vectorMin {
		i = plainBlocks(b)
	}
	for i+8 <= len(b) {
		if m := special(load64(b, i)); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	for i < len(b) && b[i] >= 0x20 && b[i] != '"' && b[i] != '\\' && b[i] < utf8.RuneSelf {
		i++
	}
	return i
}

// plainPrefix is plainLen for the scanners' hot loops, where most strings
// are short (member names, small values): its first words are looked at
// inline, with no call, and only a run longer than that goes to plainLen.
// It stops at a byte that needs a look or within 8 bytes of the end.
func plainPrefix(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if m := special(load64(b, i)); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		if i == 24 {
			return 32 + plainLen(b[32:])
		}
	}
	return i
}

// asciiPrefix returns the length of the ASCII prefix of b.
func asciiPrefix(b []byte) int {
	i := 0
	if len(b) >= vectorMin {
		i = asciiBlocks(b)
	}
	for i+8 <= len(b) && load64(b, i)&msb == 0 {
		i += 8
	}
	for i < len(b) && b[i] < utf8.RuneSelf {
		i++
	}
	return i
}

// stringBytes views s as bytes, to be read only.
func stringBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// special flags (with its top bit) each byte of the little-endian word w that
// needs a look inside a string: a quote, a backslash, a control character or
// a non-ASCII byte. Borrows may flag bytes above a flagged one, but never
// one below, so the lowest flag is exact.
func special(w uint64) uint64 {
	return w&msb | hasZero(w^(lsb*'"')) | hasZero(w^(lsb*'\\')) | (w-lsb*0x20)&^w&msb
}

// hasZero flags the zero bytes of x, under the same borrow caveat.
func hasZero(x uint64) uint64 { return (x - lsb) &^ x & msb }
