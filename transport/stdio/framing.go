package stdio

import (
	"bytes"
	"errors"
	"io"
	"math"

	"github.com/polymcp/polymcp/core/jsonrpc"
)

// bom is the UTF-8 byte order mark some Windows tools put before a stream.
var bom = []byte{0xEF, 0xBB, 0xBF}

const (
	// initialBuffer is the reader's first buffer: a pipe hands over at most
	// 64 KiB per read, so a bigger start would only cost memory.
	initialBuffer = 64 << 10
	// minRead is the least room fill leaves before reading, so that a
	// nearly full buffer is compacted rather than read into byte by byte.
	minRead = 4 << 10
	// maxEmptyReads bounds successive (0, nil) reads, as bufio does.
	maxEmptyReads = 100
)

// LineReader splits a byte stream into lines with a bounded buffer.
//
// A line ends at '\n'; a trailing '\r' is dropped, lines holding only JSON
// whitespace are skipped, and a UTF-8 byte order mark at the very start of
// the stream is removed. A line longer than the limit is reported once, as
// soon as it is known to be too long, and the rest of it is thrown away as
// it arrives, so a peer cannot make the reader hold more than about the
// limit however long it talks without a newline.
type LineReader struct {
	r   io.Reader
	max int
	// slack is how far pending bytes may exceed max before a line is known
	// to be too long: 1 for the '\r' that will be stripped.
	slack int
	// verbatim keeps lines exactly as they were (no BOM, '\r' or blank-line
	// handling), for a client that checks how a server frames its output.
	verbatim bool

	buf        []byte
	start, end int  // buf[start:end] is unread
	scan       int  // buf[start:scan] has no '\n'
	discarding bool // inside a too-long line, dropping up to its '\n'
	bomDone    bool
	eof        bool
	// unterminated reports that the last line returned ended at EOF
	// instead of at '\n'.
	unterminated bool
	// beforeRead, when set, is called before each read of the underlying
	// reader, which may block: the server flushes its output there.
	beforeRead func()
}

// NewLineReader returns a reader of lines of at most maxLineBytes bytes
// (after the '\r' is stripped); a limit below 1 selects DefaultMaxLineBytes.
// The buffer grows with the longest line seen, not with the limit.
func NewLineReader(r io.Reader, maxLineBytes int) *LineReader {
	if maxLineBytes < 1 {
		maxLineBytes = DefaultMaxLineBytes
	}
	// limit() adds 2: keep that from overflowing for an absurd limit.
	maxLineBytes = min(maxLineBytes, math.MaxInt-2)
	return &LineReader{r: r, max: maxLineBytes, slack: 1}
}

// newVerbatimReader returns a LineReader that only splits on '\n'.
func newVerbatimReader(r io.Reader, maxLineBytes int) *LineReader {
	lr := NewLineReader(r, maxLineBytes)
	lr.verbatim, lr.slack, lr.bomDone = true, 0, true
	return lr
}

// Next returns the next line, without its '\n'. The line aliases the
// reader's buffer and is valid only until the following call.
//
// tooLong reports, once per offending line and with a nil line and error,
// that a line exceeded the limit; reading then goes on after it. A final
// line without '\n' is returned at EOF like any other; then err is io.EOF.
// An error other than EOF is returned as it happens; buffered data is
// kept, so a call after, say, a read deadline goes on where it left off.
func (lr *LineReader) Next() (line []byte, tooLong bool, err error) {
	for {
		if !lr.bomDone {
			lr.checkBOM()
		}
		if l, ok := lr.cut(); ok {
			if lr.discarding {
				lr.discarding = false // the tail of a line already reported
				continue
			}
			if l, tooLong, ok = lr.accept(l); ok {
				lr.unterminated = false
				return l, tooLong, nil
			}
			continue
		}
		if lr.eof {
			return lr.finish()
		}
		if pending := lr.end - lr.start; pending > lr.max+lr.slack && !lr.discarding {
			// No '\n' within the limit: report now, drop as it comes.
			lr.discarding = true
			lr.drop()
			return nil, true, nil
		}
		if lr.discarding {
			lr.drop()
		}
		if err := lr.fill(); err != nil {
			if err != io.EOF {
				return nil, false, err
			}
			lr.eof = true
		}
	}
}

// cut removes the next complete line from the buffer.
func (lr *LineReader) cut() ([]byte, bool) {
	i := bytes.IndexByte(lr.buf[lr.scan:lr.end], '\n')
	if i < 0 {
		lr.scan = lr.end
		return nil, false
	}
	line := lr.buf[lr.start : lr.scan+i]
	lr.start = lr.scan + i + 1
	lr.scan = lr.start
	return line, true
}

// accept applies the line rules; ok is false for a line to skip.
func (lr *LineReader) accept(l []byte) (line []byte, tooLong, ok bool) {
	if lr.verbatim {
		if len(l) > lr.max {
			return nil, true, true
		}
		return l, false, true
	}
	if n := len(l); n > 0 && l[n-1] == '\r' {
		l = l[:n-1]
	}
	if len(l) > lr.max {
		return nil, true, true
	}
	if isBlank(l) {
		return nil, false, false
	}
	return l, false, true
}

// finish handles the end of input: a last unterminated line, then io.EOF.
func (lr *LineReader) finish() ([]byte, bool, error) {
	l := lr.buf[lr.start:lr.end]
	lr.drop()
	if lr.discarding || len(l) == 0 {
		lr.discarding = false
		return nil, false, io.EOF
	}
	l, tooLong, ok := lr.accept(l)
	if !ok {
		return nil, false, io.EOF
	}
	lr.unterminated = true
	return l, tooLong, nil
}

// checkBOM strips a byte order mark before the first line, once it can
// tell: three bytes are in, or what is in can no longer become one.
func (lr *LineReader) checkBOM() {
	b := lr.buf[lr.start:lr.end]
	switch {
	case len(b) >= len(bom):
		if bytes.HasPrefix(b, bom) {
			lr.start += len(bom)
			lr.scan = max(lr.scan, lr.start)
		}
	case !bytes.HasPrefix(bom, b) || lr.eof:
	default:
		return // a prefix of the mark so far: wait for more
	}
	lr.bomDone = true
}

func (lr *LineReader) drop() { lr.start, lr.end, lr.scan = 0, 0, 0 }

// fill reads at least one byte into the buffer, compacting or growing it
// first when it has too little room. It never grows past max+slack+1
// bytes, because Next stops buffering a line once it is that long.
func (lr *LineReader) fill() error {
	if lr.buf == nil {
		lr.buf = make([]byte, min(initialBuffer, lr.limit()))
	}
	if lr.start > 0 && len(lr.buf)-lr.end < minRead {
		n := copy(lr.buf, lr.buf[lr.start:lr.end])
		lr.scan -= lr.start
		lr.start, lr.end = 0, n
	}
	if lr.end == len(lr.buf) {
		grown := make([]byte, min(2*len(lr.buf), lr.limit()))
		copy(grown, lr.buf[:lr.end])
		lr.buf = grown
	}
	if lr.beforeRead != nil {
		lr.beforeRead()
	}
	for range maxEmptyReads {
		n, err := lr.r.Read(lr.buf[lr.end:])
		if n < 0 || n > len(lr.buf)-lr.end {
			return errors.New("stdio: reader returned an impossible count")
		}
		lr.end += n
		if err != nil || n > 0 {
			return err
		}
	}
	return io.ErrNoProgress
}

// limit is the largest buffer the reader needs: one byte more than the
// longest line it may have to keep, so that a line just over is seen.
func (lr *LineReader) limit() int { return lr.max + lr.slack + 1 }

// isBlank reports whether l holds only JSON whitespace.
func isBlank(l []byte) bool {
	for _, c := range l {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// AppendLine appends msg as exactly one output line: made pure ASCII by
// jsonrpc.AppendASCII, so that a peer decoding its input in a legacy code
// page still reads the right text, then '\n'. A raw CR or LF can only be
// whitespace between JSON tokens (inside strings they must be escaped), so
// each one is turned into a space: a pretty-printed result passed through
// as raw bytes must not break the framing.
func AppendLine(dst, msg []byte) []byte {
	start := len(dst)
	dst = jsonrpc.AppendASCII(dst, msg)
	body := dst[start:]
	for _, c := range [...]byte{'\n', '\r'} {
		for b := body; ; {
			i := bytes.IndexByte(b, c)
			if i < 0 {
				break
			}
			b[i] = ' '
			b = b[i+1:]
		}
	}
	return append(dst, '\n')
}
