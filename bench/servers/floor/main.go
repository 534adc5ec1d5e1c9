// Command floor is the benchmark's floor: the least an MCP server must
// do to answer the echo tool. One goroutine reads a newline-delimited JSON-RPC
// message, decodes it with sonic, encodes the answer into a buffered writer,
// and flushes only when no complete request is left in the input buffer, so
// pipelined requests are answered in batches of writes.
//
// It answers initialize, ping, tools/list and tools/call (any tool name is
// treated as echo), ignores notifications, and rejects other methods.
//
// With -http HOST:PORT it is the HTTP floor instead (see http.go).
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"io"
	"log"
	"os"
	"reflect"

	"github.com/bytedance/sonic"
	"github.com/bytedance/sonic/encoder"
)

// request is everything the floor looks at in a message. Strings and the raw
// id refer into the read buffer; they are used before the next read.
type request struct {
	ID     sonic.NoCopyRawMessage `json:"id"`
	Method string                 `json:"method"`
	Params struct {
		ProtocolVersion string `json:"protocolVersion"`
		Arguments       struct {
			Text string `json:"text"`
		} `json:"arguments"`
	} `json:"params"`
}

type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type callResult struct {
	Content []content `json:"content"`
}

type response[R any] struct {
	JSONRPC string                 `json:"jsonrpc"`
	ID      sonic.NoCopyRawMessage `json:"id"`
	Result  R                      `json:"result"`
}

// initResult keeps its keys in order (a map's would vary from run to run).
type initResult struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    map[string]any `json:"capabilities"`
	ServerInfo      map[string]any `json:"serverInfo"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type errorResponse struct {
	JSONRPC string                 `json:"jsonrpc"`
	ID      sonic.NoCopyRawMessage `json:"id"`
	Error   rpcError               `json:"error"`
}

var toolList = map[string]any{"tools": []any{map[string]any{
	"name":        "echo",
	"description": "Echo the text back.",
	"inputSchema": map[string]any{
		"type":       "object",
		"properties": map[string]any{"text": map[string]any{"type": "string"}},
		"required":   []string{"text"},
	},
}}}

func main() {
	addr := flag.String("http", "", "serve HTTP on `host:port` (POST /mcp) instead of stdio; prints the URL on stderr")
	flag.Parse()
	// Compile sonic's codecs now rather than on the first call.
	if err := sonic.Pretouch(reflect.TypeFor[request]()); err != nil {
		log.Fatal(err)
	}
	if err := sonic.Pretouch(reflect.TypeFor[response[callResult]]()); err != nil {
		log.Fatal(err)
	}
	if *addr != "" {
		if err := serveHTTP(*addr); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := serve(os.Stdin, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func serve(in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 1<<20)
	w := bufio.NewWriterSize(out, 1<<20)
	var (
		lines = lineReader{r: r}
		buf   []byte
		req   request
		call  = response[callResult]{JSONRPC: "2.0", Result: callResult{Content: make([]content, 1)}}
	)
	call.Result.Content[0].Type = "text"
	for {
		line, err := lines.next()
		if errors.Is(err, io.EOF) {
			return w.Flush()
		}
		if err != nil {
			return err
		}
		req = request{}
		buf = buf[:0]
		if err := sonic.Unmarshal(line, &req); err != nil {
			buf, err = encode(buf, errorResponse{"2.0", sonic.NoCopyRawMessage("null"), rpcError{-32700, "parse error"}})
			if err != nil {
				return err
			}
		} else if len(req.ID) != 0 {
			if buf, err = answer(buf, &req, &call); err != nil {
				return err
			}
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
		if !completeLineBuffered(r) {
			if err := w.Flush(); err != nil {
				return err
			}
		}
	}
}

// answer appends the response line for req to buf.
func answer(buf []byte, req *request, call *response[callResult]) ([]byte, error) {
	switch req.Method {
	case "tools/call":
		call.ID = req.ID
		call.Result.Content[0].Text = req.Params.Arguments.Text
		return encode(buf, call)
	case "initialize":
		v := req.Params.ProtocolVersion
		if v == "" {
			v = "2025-06-18"
		}
		return encode(buf, response[initResult]{"2.0", req.ID, initResult{
			ProtocolVersion: v,
			Capabilities:    map[string]any{"tools": map[string]any{}},
			ServerInfo:      map[string]any{"name": "bench-floor", "version": "0"},
		}})
	case "ping":
		return encode(buf, response[struct{}]{"2.0", req.ID, struct{}{}})
	case "tools/list":
		return encode(buf, response[map[string]any]{"2.0", req.ID, toolList})
	default:
		return encode(buf, errorResponse{"2.0", req.ID, rpcError{-32601, "method not found"}})
	}
}

// encodeOpts skips re-validating raw ids: they were parsed from valid JSON.
const encodeOpts = encoder.NoValidateJSONMarshaler | encoder.CompactMarshaler

func encode(buf []byte, v any) ([]byte, error) {
	if err := encoder.EncodeInto(&buf, v, encodeOpts); err != nil {
		return buf, err
	}
	return append(buf, '\n'), nil
}

// lineReader yields lines without their newline. A line that fits the
// reader's buffer is returned in place, without a copy, and is valid until the
// next call; longer ones are assembled in scratch. A final line without a
// newline counts as a line.
type lineReader struct {
	r       *bufio.Reader
	scratch []byte
}

func (l *lineReader) next() ([]byte, error) {
	chunk, err := l.r.ReadSlice('\n')
	if err == nil {
		return chunk[:len(chunk)-1], nil
	}
	l.scratch = append(l.scratch[:0], chunk...)
	for errors.Is(err, bufio.ErrBufferFull) {
		chunk, err = l.r.ReadSlice('\n')
		l.scratch = append(l.scratch, chunk...)
	}
	switch {
	case err == nil:
		return l.scratch[:len(l.scratch)-1], nil
	case errors.Is(err, io.EOF) && len(l.scratch) > 0:
		return l.scratch, nil
	default:
		return nil, err
	}
}

// completeLineBuffered reports whether another whole line can be read without
// blocking on the input.
func completeLineBuffered(r *bufio.Reader) bool {
	n := r.Buffered()
	if n == 0 {
		return false
	}
	peek, _ := r.Peek(n)
	return bytes.IndexByte(peek, '\n') >= 0
}
