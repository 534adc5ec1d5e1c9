package load

import (
	"errors"
	"fmt"
	"sync"

	"github.com/bytedance/sonic"
)

// fakeServer is an in-process echo server behind a ClientTransport. Every
// corruptEvery-th tools/call answer (if non-zero) echoes the wrong text.
type fakeServer struct {
	corruptEvery int

	mu      sync.Mutex
	queued  [][]byte
	calls   int
	answers chan []byte
	closed  chan struct{}
	once    sync.Once
}

func newFakeServer() *fakeServer {
	return &fakeServer{answers: make(chan []byte, 1<<12), closed: make(chan struct{})}
}

func (f *fakeServer) Send(frame []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queued = append(f.queued, append([]byte(nil), frame...))
	return nil
}

func (f *fakeServer) Flush() error {
	f.mu.Lock()
	queued := f.queued
	f.queued = nil
	f.mu.Unlock()
	for _, frame := range queued {
		answer, err := f.answer(frame)
		if err != nil {
			return err
		}
		if answer != nil {
			select {
			case f.answers <- answer:
			case <-f.closed:
				return errors.New("closed")
			}
		}
	}
	return nil
}

func (f *fakeServer) answer(frame []byte) ([]byte, error) {
	var req struct {
		ID     sonic.NoCopyRawMessage `json:"id"`
		Method string                 `json:"method"`
		Params struct {
			Arguments struct {
				Text string `json:"text"`
			} `json:"arguments"`
		} `json:"params"`
	}
	if err := sonic.Unmarshal(frame, &req); err != nil {
		return nil, err
	}
	var result any
	switch req.Method {
	case "":
		return nil, fmt.Errorf("not a request: %s", frame)
	case "notifications/initialized":
		return nil, nil
	case "initialize":
		result = map[string]any{"protocolVersion": ProtocolVersion, "serverInfo": map[string]any{"name": "fake", "version": "1"}}
	case "tools/list":
		result = map[string]any{"tools": []any{map[string]any{"name": "echo"}}}
	case "tools/call":
		f.calls++
		text := req.Params.Arguments.Text
		if f.corruptEvery > 0 && f.calls%f.corruptEvery == 0 {
			text = "wrong"
		}
		result = map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}
	}
	return sonic.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
}

func (f *fakeServer) Recv() ([]byte, error) {
	select {
	case a := <-f.answers:
		return a, nil
	case <-f.closed:
		return nil, errors.New("closed")
	}
}

func (f *fakeServer) Close() error {
	f.once.Do(func() { close(f.closed) })
	return nil
}
