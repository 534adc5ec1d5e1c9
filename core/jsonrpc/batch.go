package jsonrpc

// SplitBatch returns the elements of a batch. When the input, ignoring
// surrounding whitespace, is a JSON array it is validated with lim (the array
// is level 1 of MaxDepth) and each element's raw bytes are returned, aliasing
// data; elements are not checked to be messages, which is Decode's job, so
// that each bad one gets its own answer. An empty batch is an Invalid Request.
// Any other input is returned whole as the single item, undecoded.
func SplitBatch(data []byte, lim Limits) (items [][]byte, isBatch bool, err *Error) {
	s := scanner{data: data, lim: lim.withDefaults()}
	s.pos = skipWS(data, 0)
	if s.pos >= len(data) || data[s.pos] != '[' {
		return [][]byte{data}, false, nil
	}
	items, err = s.batch()
	if err != nil {
		return nil, true, err
	}
	return items, true, nil
}

// batch scans the array at s.pos through the end of input.
func (s *scanner) batch() ([][]byte, *Error) {
	s.pos++ // '['
	if i := skipWS(s.data, s.pos); i < len(s.data) && s.data[i] == ']' {
		s.pos = i + 1
		if err := s.end(); err != nil {
			return nil, err
		}
		return nil, Errorf(KindJSONRPC, CodeInvalidRequest, "invalid request: empty batch")
	}
	var items [][]byte
	for {
		start := skipWS(s.data, s.pos)
		s.pos = start
		if err := s.value(1); err != nil {
			return nil, err
		}
		items = append(items, s.data[start:s.pos])
		i := skipWS(s.data, s.pos)
		switch {
		case i < len(s.data) && s.data[i] == ',':
			s.pos = i + 1
		case i < len(s.data) && s.data[i] == ']':
			s.pos = i + 1
			return items, s.end()
		default:
			return nil, s.fail(probChar, i)
		}
	}
}

// Valid checks that data is exactly one JSON value (RFC 8259) within lim:
// well-formed, valid UTF-8, nested at most MaxDepth deep and with no number
// longer than MaxNumberDigits. Its errors are parse errors (-32700).
func Valid(data []byte, lim Limits) *Error {
	s := scanner{data: data, lim: lim.withDefaults()}
	if err := s.value(0); err != nil {
		return err
	}
	return s.end()
}
