package stdio

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tooLongMark stands for a tooLong report in the event lists below.
const tooLongMark = "<too long>"

// readAll runs lr to the end and lists what Next reported.
func readAll(t testing.TB, lr *LineReader) []string {
	t.Helper()
	var got []string
	for range 1 << 16 {
		line, tooLong, err := lr.Next()
		if errors.Is(err, io.EOF) {
			require.Nil(t, line)
			require.False(t, tooLong)
			return got
		}
		require.NoError(t, err)
		if tooLong {
			require.Nil(t, line)
			got = append(got, tooLongMark)
			continue
		}
		got = append(got, string(line))
	}
	t.Fatal("LineReader never reached EOF")
	return nil
}

func TestLineReader(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		max  int
		want []string
	}{
		{"one line", "{\"a\":1}\n", 0, []string{`{"a":1}`}},
		{"last line without newline", "{}\n[]", 0, []string{"{}", "[]"}},
		{"CRLF", "{\"a\":1}\r\n{\"b\":2}\r\n", 0, []string{`{"a":1}`, `{"b":2}`}},
		{"only the last CR goes", "a\r\r\n", 0, []string{"a\r"}},
		{"CR at EOF", "a\r", 0, []string{"a"}},
		{"blank lines", "\n\r\n  \t\n{}\n \r\n\n", 0, []string{"{}"}},
		{"BOM before the first line", "\xef\xbb\xbf{\"a\":1}\n{}\n", 0, []string{`{"a":1}`, "{}"}},
		{"BOM alone", "\xef\xbb\xbf", 0, nil},
		{"BOM then blank line", "\xef\xbb\xbf\r\n{}\n", 0, []string{"{}"}},
		{"BOM only at the start of the stream", "{}\n\xef\xbb\xbf{}\n", 0, []string{"{}", "\xef\xbb\xbf{}"}},
		{"BOM after a blank first line is data", "\n\xef\xbb\xbf{}\n", 0, []string{"\xef\xbb\xbf{}"}},
		{"two BOMs: the second is data", "\xef\xbb\xbf\xef\xbb\xbf{}\n", 0, []string{"\xef\xbb\xbf{}"}},
		{"part of a BOM is data", "\xef\xbb{}\n", 0, []string{"\xef\xbb{}"}},
		{"part of a BOM at EOF", "\xef\xbb", 0, []string{"\xef\xbb"}},
		{"exactly max", "12345\n", 5, []string{"12345"}},
		{"exactly max with CR", "12345\r\n", 5, []string{"12345"}},
		{"one over max", "123456\n{}\n", 5, []string{tooLongMark, "{}"}},
		{"one over max with CR", "123456\r\n{}\n", 5, []string{tooLongMark, "{}"}},
		{"far over max", strings.Repeat("x", 100) + "\n{}\n", 5, []string{tooLongMark, "{}"}},
		{"over max at EOF", strings.Repeat("x", 100), 5, []string{tooLongMark}},
		{"just over max at EOF", "123456", 5, []string{tooLongMark}},
		{"too long lines in a row", "1234567\n1234567\r\n12\n", 5, []string{tooLongMark, tooLongMark, "12"}},
		{"BOM does not count", "\xef\xbb\xbf12345\n", 5, []string{"12345"}},
		{"blank lines over max are still too long", strings.Repeat(" ", 9) + "\n{}\n", 5, []string{tooLongMark, "{}"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			readers := map[string]func() io.Reader{
				"whole":    func() io.Reader { return strings.NewReader(tc.in) },
				"one byte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(tc.in)) },
				"data+EOF": func() io.Reader { return iotest.DataErrReader(strings.NewReader(tc.in)) },
			}
			for name, r := range readers {
				assert.Equal(t, tc.want, readAll(t, NewLineReader(r(), tc.max)), name)
			}
		})
	}
}

func TestLineReaderDefaultLimit(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want []string
	}{
		{DefaultMaxLineBytes, []string{strings.Repeat("x", DefaultMaxLineBytes), "{}"}},
		{DefaultMaxLineBytes + 1, []string{tooLongMark, "{}"}},
	} {
		in := strings.Repeat("x", tc.n) + "\n{}\n"
		got := readAll(t, NewLineReader(strings.NewReader(in), 0))
		assert.Equal(t, tc.want, got, "line of %d bytes", tc.n)
	}
}

// An absurd limit is no limit, not an overflow.
func TestLineReaderHugeLimit(t *testing.T) {
	lr := NewLineReader(strings.NewReader("{}\n[]"), math.MaxInt)
	assert.Equal(t, []string{"{}", "[]"}, readAll(t, lr))
}

// A line that never ends is dropped as it arrives: the buffer stays near
// the limit however much is sent.
func TestLineReaderBoundedBuffer(t *testing.T) {
	const max = 1000
	r := io.MultiReader(strings.NewReader(strings.Repeat("y", 10<<20)), strings.NewReader("\n{}\n"))
	lr := NewLineReader(r, max)
	assert.Equal(t, []string{tooLongMark, "{}"}, readAll(t, lr))
	assert.LessOrEqual(t, cap(lr.buf), max+2)
}

// A read error is returned as it happens and what was buffered is kept.
func TestLineReaderErrorKeepsData(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader(`{"a":`), iotest.ErrReader(boom))
	lr := NewLineReader(r, 0)
	_, _, err := lr.Next()
	require.ErrorIs(t, err, boom)
	lr.r = strings.NewReader("1}\n")
	assert.Equal(t, []string{`{"a":1}`}, readAll(t, lr))
}

// A reader that only ever returns (0, nil) is reported, not spun on.
func TestLineReaderNoProgress(t *testing.T) {
	lr := NewLineReader(readerFunc(func([]byte) (int, error) { return 0, nil }), 0)
	_, _, err := lr.Next()
	assert.ErrorIs(t, err, io.ErrNoProgress)
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// The verbatim reader of Process keeps what a server wrote.
func TestVerbatimReader(t *testing.T) {
	in := "\xef\xbb\xbf{}\r\n\n{}\n123456\n1234567\n12345\r\n"
	got := readAll(t, newVerbatimReader(strings.NewReader(in), 6))
	assert.Equal(t, []string{"\xef\xbb\xbf{}\r", "", "{}", "123456", tooLongMark, "12345\r"}, got)
}

func TestAppendLine(t *testing.T) {
	for _, tc := range []struct{ name, msg, want string }{
		{"ASCII unchanged", `{"a":"b"}`, `{"a":"b"}` + "\n"},
		{"BMP escaped", `{"t":"héllo €"}`, `{"t":"h\u00e9llo \u20ac"}` + "\n"},
		{"astral as a surrogate pair", `{"t":"😀"}`, `{"t":"\ud83d\ude00"}` + "\n"},
		{"line separators escaped", "{\"t\":\"a\u2028b\u2029\"}", `{"t":"a\u2028b\u2029"}` + "\n"},
		{"invalid UTF-8 replaced", "{\"t\":\"\xff\"}", `{"t":"\ufffd"}` + "\n"},
		{"raw newlines between tokens become spaces", "{\n\"a\":\r\n1}", `{ "a":  1}` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := AppendLine([]byte("prev\n"), []byte(tc.msg))
			assert.Equal(t, "prev\n"+tc.want, string(got))
			assert.Equal(t, 2, bytes.Count(got, []byte("\n")))
		})
	}
}
