package load

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/bytedance/sonic"
)

// Every load request has a 12-digit id at or above idBase, so ids never start
// with a zero and always take the same room in the frame. The same digits
// open the echoed text, which makes every request's text distinct.
const (
	idDigits = 12
	idBase   = 100_000_000_000
)

// callTemplate is one tools/call frame whose id and text prefix are patched
// in place for each request, so building a request costs two small copies.
type callTemplate struct {
	frame  []byte
	idAt   int
	textAt int
	filler string // the text after its id prefix
	size   int    // the text's length in bytes
}

func newCallTemplate(payload int) *callTemplate { return newCallTemplateMeta(payload, "") }

// newCallTemplateMeta is newCallTemplate with params._meta set to meta (raw
// JSON), if it is not empty.
func newCallTemplateMeta(payload int, meta string) *callTemplate {
	if payload < 1 {
		payload = 1
	}
	var filler strings.Builder
	for i := idDigits; i < payload; i++ {
		filler.WriteByte('a' + byte(i%26))
	}
	id := strconv.FormatUint(idBase, 10)
	head := `{"jsonrpc":"2.0","id":`
	mid := `,"method":"tools/call","params":{`
	if meta != "" {
		mid += `"_meta":` + meta + `,`
	}
	mid += `"name":"echo","arguments":{"text":"`
	t := &callTemplate{filler: filler.String(), size: payload}
	t.idAt = len(head)
	t.textAt = len(head) + len(id) + len(mid)
	text := (id + t.filler)[:payload]
	t.frame = []byte(head + id + mid + text + `"}}}`)
	return t
}

// patch writes id into the frame and returns it.
func (t *callTemplate) patch(id uint64) []byte {
	var digits [idDigits]byte
	strconv.AppendUint(digits[:0], id, 10)
	copy(t.frame[t.idAt:], digits[:])
	copy(t.frame[t.textAt:t.textAt+min(t.size, idDigits)], digits[:])
	return t.frame
}

// check reports whether text is what request id sent.
func (t *callTemplate) check(id uint64, text string) bool {
	if len(text) != t.size {
		return false
	}
	var digits [idDigits]byte
	strconv.AppendUint(digits[:0], id, 10)
	n := min(t.size, idDigits)
	return text[:n] == string(digits[:n]) && text[n:] == t.filler
}

// message is the part of a server message the reader looks at. Strings refer
// into the received frame (sonic's default config does not copy them).
type message struct {
	ID     sonic.NoCopyRawMessage `json:"id"`
	Method string                 `json:"method"`
	Result struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// pretouch compiles sonic's decoder for message ahead of the first answer,
// so the JIT's one-time cost does not land in a run.
var pretouch = sync.OnceValue(func() error { return sonic.Pretouch(reflect.TypeFor[message]()) })

func decode(frame []byte, m *message) error {
	*m = message{}
	return sonic.Unmarshal(frame, m)
}

// numericID returns the message's id if it is a plain unsigned integer.
func (m *message) numericID() (uint64, bool) {
	if len(m.ID) == 0 || len(m.ID) > 19 {
		return 0, false
	}
	var id uint64
	for _, c := range m.ID {
		if c < '0' || c > '9' {
			return 0, false
		}
		id = id*10 + uint64(c-'0')
	}
	return id, true
}

// echoText returns the echoed text of a tools/call answer, or why there is none.
func (m *message) echoText() (string, error) {
	switch {
	case m.Error != nil:
		return "", fmt.Errorf("error %d: %s", m.Error.Code, m.Error.Message)
	case m.Result.IsError:
		return "", fmt.Errorf("tool error: %.200v", m.Result.Content)
	case len(m.Result.Content) != 1 || m.Result.Content[0].Type != "text":
		return "", fmt.Errorf("want one text content, got %.200v", m.Result.Content)
	}
	return m.Result.Content[0].Text, nil
}
