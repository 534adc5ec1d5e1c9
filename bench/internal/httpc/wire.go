package httpc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"
)

// wire is one keep-alive HTTP/1.1 connection. It writes requests from a
// prebuilt head and parses responses by hand: the driver shares two cores
// with the server, and net/http's client costs several times more per
// request than this, which would blur the comparison at small payloads.
//
// One goroutine at a time uses a wire; shutdown may come from any other.
type wire struct {
	addr string
	br   *bufio.Reader
	bw   *bufio.Writer
	used bool // at least one response was read on the current connection
	num  [20]byte

	mu   sync.Mutex
	nc   net.Conn // nil between a close and the next redial
	shut bool     // shutdown was called: no more redials
}

func dialWire(addr string) (*wire, error) {
	w := &wire{addr: addr}
	if err := w.redial(); err != nil {
		return nil, err
	}
	return w, nil
}

// redial opens a new connection, after the previous one closed.
func (w *wire) redial() error {
	nc, err := net.DialTimeout("tcp", w.addr, 5*time.Second)
	if err != nil {
		return err
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.shut {
		nc.Close()
		return errors.New("connection shut down")
	}
	w.nc, w.used = nc, false
	if w.br == nil {
		w.br, w.bw = bufio.NewReaderSize(nc, 64<<10), bufio.NewWriterSize(nc, 32<<10)
	} else {
		w.br.Reset(nc)
		w.bw.Reset(nc)
	}
	return nil
}

func (w *wire) conn() net.Conn {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.nc
}

// close closes the current connection; the next roundTrip redials.
func (w *wire) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.nc != nil {
		w.nc.Close()
		w.nc = nil
	}
}

// shutdown closes the connection for good, unblocking its user.
func (w *wire) shutdown() {
	w.mu.Lock()
	w.shut = true
	w.mu.Unlock()
	w.close()
}

// response is a parsed HTTP response. body is the decoded (de-chunked)
// entity and lives in buf, a pooled buffer the caller owns.
type response struct {
	status  int
	ctype   string // media type, lower case, without parameters
	session string // Mcp-Session-Id
	close   bool   // the server will close the connection
	buf     *[]byte
	body    []byte
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

func getBuf() *[]byte { return bufPool.Get().(*[]byte) }

func putBuf(b *[]byte) {
	if b != nil && cap(*b) <= 4<<20 {
		*b = (*b)[:0]
		bufPool.Put(b)
	}
}

// errRetry marks a failure on a reused connection before any byte of the
// answer arrived: the server had closed the idle connection, so the request
// may be sent again on a new one.
var errRetry = errors.New("connection closed before the answer")

// roundTrip sends one POST made of head (ending in "Content-Length: "), the
// body's length, and body, and reads the answer.
func (w *wire) roundTrip(head, body []byte) (*response, error) {
	if w.conn() == nil {
		if err := w.redial(); err != nil {
			return nil, err
		}
	}
	w.bw.Write(head)
	w.bw.Write(strconv.AppendInt(w.num[:0], int64(len(body)), 10))
	w.bw.WriteString("\r\n\r\n")
	w.bw.Write(body)
	if err := w.bw.Flush(); err != nil {
		return nil, w.broken(err, false)
	}
	resp, started, err := w.readResponse()
	if err != nil {
		return nil, w.broken(err, started)
	}
	w.used = true
	if resp.close {
		w.close()
	}
	return resp, nil
}

// broken closes the connection after err and says whether to retry.
func (w *wire) broken(err error, started bool) error {
	reused := w.used
	w.close()
	if reused && !started {
		return fmt.Errorf("%w: %v", errRetry, err)
	}
	return err
}

// readResponse parses the status line, the headers it needs and the body.
// started reports whether any of the answer was read.
func (w *wire) readResponse() (resp *response, started bool, err error) {
	line, err := w.line()
	if err != nil {
		return nil, false, err
	}
	// HTTP/1.1 200 OK
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return nil, true, fmt.Errorf("malformed status line %.80q", line)
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return nil, true, fmt.Errorf("malformed status line %.80q", line)
	}
	resp = &response{status: status, close: line[7] == '0'}
	length, chunked := -1, false
	for {
		line, err := w.line()
		if err != nil {
			return nil, true, err
		}
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return nil, true, fmt.Errorf("malformed header line %.80q", line)
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(value)); err != nil || length < 0 {
				return nil, true, fmt.Errorf("bad Content-Length %q", value)
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.Contains(bytes.ToLower(value), []byte("chunked"))
		case bytes.EqualFold(name, []byte("Content-Type")):
			mt, _, _ := bytes.Cut(value, []byte(";"))
			resp.ctype = string(bytes.ToLower(bytes.TrimSpace(mt)))
		case bytes.EqualFold(name, []byte("Mcp-Session-Id")):
			resp.session = string(value)
		case bytes.EqualFold(name, []byte("Connection")):
			if bytes.EqualFold(value, []byte("close")) {
				resp.close = true
			} else if bytes.EqualFold(value, []byte("keep-alive")) {
				resp.close = false
			}
		}
	}
	resp.buf = getBuf()
	body := (*resp.buf)[:0]
	switch {
	case status == 204 || status == 304 || status < 200:
	case chunked:
		body, err = w.chunked(body)
	case length >= 0:
		body = grow(body, length)
		_, err = io.ReadFull(w.br, body[:length])
		body = body[:length]
	default: // until the connection ends
		resp.close = true
		var rest []byte
		rest, err = io.ReadAll(w.br)
		body = append(body, rest...)
	}
	*resp.buf = body
	resp.body = body
	if err != nil {
		putBuf(resp.buf)
		return nil, true, err
	}
	return resp, true, nil
}

// chunked appends a chunked body to dst.
func (w *wire) chunked(dst []byte) ([]byte, error) {
	for {
		line, err := w.line()
		if err != nil {
			return dst, err
		}
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i]
		}
		size, err := strconv.ParseUint(string(bytes.TrimSpace(line)), 16, 32)
		if err != nil {
			return dst, fmt.Errorf("bad chunk size %.40q", line)
		}
		if size == 0 {
			for { // trailers, up to the blank line
				line, err := w.line()
				if err != nil || len(line) == 0 {
					return dst, err
				}
			}
		}
		n := len(dst)
		dst = grow(dst, int(size))[:n+int(size)]
		if _, err := io.ReadFull(w.br, dst[n:]); err != nil {
			return dst, err
		}
		if crlf, err := w.line(); err != nil || len(crlf) != 0 {
			return dst, errors.Join(err, errors.New("chunk not followed by CRLF"))
		}
	}
}

// line reads a header-sized line without its CRLF. It is valid until the
// next read.
func (w *wire) line() ([]byte, error) {
	line, err := w.br.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			err = errors.New("header line longer than 64 KiB")
		}
		return nil, err
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

// grow makes room for n more bytes after len(b).
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	return append(b[:cap(b)], make([]byte, len(b)+n-cap(b))...)[:len(b)]
}

// events returns the data of each SSE event in body, in order, as slices of
// body where the event has one data line (the usual case) and as copies
// where it has several. Events without data (priming events, comments) are
// left out; an event the stream ends in without its blank line counts.
func events(body []byte) [][]byte {
	var (
		out   [][]byte
		data  []byte
		lines int
	)
	flush := func() {
		if lines > 0 && len(data) > 0 {
			out = append(out, data)
		}
		data, lines = nil, 0
	}
	for len(body) > 0 {
		var line []byte
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			line, body = body, nil
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if len(line) == 0 {
			flush()
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if string(field) != "data" {
			continue // event, id, retry, or a comment (empty field)
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		if lines == 0 {
			data = value
		} else {
			data = append(append(append([]byte(nil), data...), '\n'), value...)
		}
		lines++
	}
	flush()
	return out
}
