package stdio

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// chunkReader hands data over in pieces whose sizes cycle through sizes,
// the last piece together with io.EOF, as some readers do.
type chunkReader struct {
	data  []byte
	sizes []byte
	i     int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := len(c.data)
	if len(c.sizes) > 0 {
		n = int(c.sizes[c.i%len(c.sizes)]) + 1
		c.i++
	}
	n = min(n, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	if len(c.data) == 0 {
		return n, io.EOF
	}
	return n, nil
}

// frameModel is what LineReader must report for data, computed the
// obvious way on the whole input.
func frameModel(data []byte, max int) []string {
	data = bytes.TrimPrefix(data, bom)
	var want []string
	for _, l := range bytes.Split(data, []byte("\n")) {
		l = bytes.TrimSuffix(l, []byte("\r"))
		switch {
		case len(l) > max:
			want = append(want, tooLongMark)
		case !isBlank(l):
			want = append(want, string(l))
		}
	}
	return want
}

// FuzzFrame checks LineReader against frameModel for any bytes cut into
// any chunks: it never panics, never returns a line over the limit, and
// the lines it returns are the input's non-blank lines.
func FuzzFrame(f *testing.F) {
	f.Add([]byte("\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\n"), []byte{0}, uint16(64))
	f.Add([]byte("{}\n\xef\xbb\xbf[]\n  \t\r\n{\"a\":1}"), []byte{2, 0, 5}, uint16(3))
	f.Add([]byte("123456\r\n12345\r\n1234567\n\r"), []byte{6, 1}, uint16(5))
	f.Add([]byte("\xef\xbb"), []byte{}, uint16(1))
	f.Fuzz(func(t *testing.T, data, sizes []byte, max16 uint16) {
		max := int(max16%512) + 1
		lr := NewLineReader(&chunkReader{data: data, sizes: sizes}, max)
		var got []string
		for {
			line, tooLong, err := lr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			require.LessOrEqual(t, len(line), max)
			require.LessOrEqual(t, len(lr.buf), max+2, "buffer beyond the limit")
			if tooLong {
				got = append(got, tooLongMark)
			} else {
				got = append(got, string(line))
			}
		}
		require.Equal(t, frameModel(data, max), got)
	})
}

// wouldBlockReader is a chunkReader whose input arrives in pieces, as a
// pumped reader sees it: after each piece the next Read finds nothing
// ready (errWouldBlock) before the following piece comes.
type wouldBlockReader struct {
	chunkReader
	waiting bool
}

func (w *wouldBlockReader) Read(p []byte) (int, error) {
	if w.waiting {
		w.waiting = false
		return 0, errWouldBlock
	}
	w.waiting = true
	return w.chunkReader.Read(p)
}

// FuzzFramePumped is FuzzFrame for a Pump's input, which runs dry between
// pieces: LineReader must keep what it had (a partial line, a byte order
// mark not yet whole, a too-long line being dropped) across each
// errWouldBlock and give the same lines as for the whole input at once.
func FuzzFramePumped(f *testing.F) {
	f.Add([]byte("\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\n"), []byte{0}, uint16(64))
	f.Add([]byte("{\"a\":\"xxxxxxxxxxxxxxxx\"}\n{}\n"), []byte{3, 1}, uint16(8))
	f.Add([]byte("\xef\xbb"), []byte{}, uint16(1))
	f.Fuzz(func(t *testing.T, data, sizes []byte, max16 uint16) {
		max := int(max16%512) + 1
		lr := NewLineReader(&wouldBlockReader{chunkReader: chunkReader{data: data, sizes: sizes}}, max)
		var got []string
		for dry := 0; ; {
			line, tooLong, err := lr.Next()
			if errors.Is(err, errWouldBlock) {
				dry++
				require.LessOrEqual(t, dry, 2*len(data)+2, "no progress")
				continue
			}
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			require.LessOrEqual(t, len(line), max)
			if tooLong {
				got = append(got, tooLongMark)
			} else {
				got = append(got, string(line))
			}
		}
		require.Equal(t, frameModel(data, max), got)
	})
}
