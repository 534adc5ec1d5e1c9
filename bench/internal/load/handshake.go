package load

import (
	"errors"
	"fmt"
	"time"

	"github.com/bytedance/sonic"
)

// ProtocolVersion is the MCP revision the driver asks for.
const ProtocolVersion = "2025-06-18"

// ServerInfo is what the server said about itself in initialize.
type ServerInfo struct {
	Name            string `json:"name"`
	Version         string `json:"version"`
	ProtocolVersion string `json:"protocol_version"`
}

var errNoEcho = errors.New("server lists no echo tool")

// Handshake opens the MCP session on t: initialize, then
// notifications/initialized, then tools/list, which must include echo.
// If the server does not answer within timeout, Handshake closes t.
func Handshake(t ClientTransport, timeout time.Duration) (ServerInfo, error) {
	type outcome struct {
		info ServerInfo
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		info, err := handshake(t)
		done <- outcome{info, err}
	}()
	select {
	case o := <-done:
		return o.info, o.err
	case <-time.After(timeout):
		t.Close()
		<-done
		return ServerInfo{}, fmt.Errorf("no answer to the handshake within %v", timeout)
	}
}

func handshake(t ClientTransport) (ServerInfo, error) {
	var init struct {
		ProtocolVersion string     `json:"protocolVersion"`
		ServerInfo      ServerInfo `json:"serverInfo"`
	}
	err := call(t, 1, `"initialize","params":{"protocolVersion":"`+ProtocolVersion+
		`","capabilities":{},"clientInfo":{"name":"mcpbench","version":"0.1"}}`, &init)
	if err != nil {
		return ServerInfo{}, fmt.Errorf("initialize: %w", err)
	}
	info := init.ServerInfo
	info.ProtocolVersion = init.ProtocolVersion
	if err := send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return info, err
	}
	var list toolList
	if err := call(t, 2, `"tools/list"`, &list); err != nil {
		return info, fmt.Errorf("tools/list: %w", err)
	}
	if !list.has("echo") {
		return info, errNoEcho
	}
	return info, nil
}

type toolList struct {
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

func (l *toolList) has(name string) bool {
	for _, t := range l.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// call sends request id with the given method text (the frame after
// "method":) and decodes the result of its answer into result.
func call(t ClientTransport, id int, method string, result any) error {
	if err := send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%s}`, id, method)); err != nil {
		return err
	}
	want := fmt.Sprint(id)
	for {
		frame, err := t.Recv()
		if err != nil {
			return err
		}
		var m struct {
			ID     sonic.NoCopyRawMessage `json:"id"`
			Method string                 `json:"method"`
			Result sonic.NoCopyRawMessage `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := sonic.Unmarshal(frame, &m); err != nil {
			return fmt.Errorf("undecodable answer %.200q: %w", frame, err)
		}
		if m.Method != "" || string(m.ID) != want {
			continue // a notification, or not our answer
		}
		if m.Error != nil {
			return fmt.Errorf("error %d: %s", m.Error.Code, m.Error.Message)
		}
		return sonic.Unmarshal(m.Result, result)
	}
}

func send(t ClientTransport, frame string) error {
	if err := t.Send([]byte(frame)); err != nil {
		return err
	}
	return t.Flush()
}
