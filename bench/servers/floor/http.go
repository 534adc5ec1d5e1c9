package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"

	"github.com/bytedance/sonic"
)

// The HTTP floor is a bare net/http server: each POST body is one JSON-RPC
// message, decoded with sonic and answered as application/json with a
// Content-Length. A notification gets 202. It checks no header, keeps no
// session and sets no MCP header: nothing a real Streamable HTTP server
// must do beyond decoding and encoding, so nothing real can be cheaper on
// net/http. Any path is served.
func serveHTTP(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "floor: serving http://%s/mcp\n", l.Addr())
	return http.Serve(l, http.HandlerFunc(handle))
}

// buffers holds the request body and answer buffers between requests.
var buffers = sync.Pool{New: func() any { return new(httpBufs) }}

type httpBufs struct {
	in, out []byte
	call    response[callResult]
}

func handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	b := buffers.Get().(*httpBufs)
	defer buffers.Put(b)
	var err error
	if b.in, err = readBody(b.in[:0], r); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if b.call.Result.Content == nil {
		b.call = response[callResult]{JSONRPC: "2.0", Result: callResult{Content: []content{{Type: "text"}}}}
	}
	var req request
	b.out = b.out[:0]
	if err := sonic.Unmarshal(b.in, &req); err != nil {
		b.out, _ = encode(b.out, errorResponse{"2.0", sonic.NoCopyRawMessage("null"), rpcError{-32700, "parse error"}})
		reply(w, http.StatusBadRequest, b.out)
		return
	}
	if len(req.ID) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if b.out, err = answer(b.out, &req, &b.call); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	reply(w, http.StatusOK, b.out)
}

func reply(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = []string{"application/json"}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	w.Write(body)
}

// readBody appends r's body to dst, sized by Content-Length when given.
func readBody(dst []byte, r *http.Request) ([]byte, error) {
	if n := r.ContentLength; n > 0 && int64(cap(dst)) < n {
		dst = make([]byte, 0, n)
	}
	for {
		if len(dst) == cap(dst) {
			dst = append(dst, 0)[:len(dst)]
		}
		n, err := r.Body.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}
