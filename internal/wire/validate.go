package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Validator checks the messages of one connection against one revision's
// schema. It remembers the requests the client sent (Sent) so that it can
// check each result against the result type of the method that produced it.
// It is safe for concurrent use.
type Validator struct {
	rev *revSchema

	mu sync.Mutex
	// pending maps a request id (see idKey) to the methods of the requests
	// sent with it and not yet answered, oldest first.
	pending map[string][]string
}

// Validator returns a validator for one connection speaking revision.
func (s *Schemas) Validator(revision string) (*Validator, error) {
	r, err := s.revision(revision)
	if err != nil {
		return nil, err
	}
	return &Validator{rev: r, pending: map[string][]string{}}, nil
}

// Revision is the revision v checks against.
func (v *Validator) Revision() string { return v.rev.revision }

// Sent records the requests in msg (one message or a batch) sent by the
// client. Anything that is not a request with an id is ignored, since the
// server may legitimately refuse it.
func (v *Validator) Sent(msg []byte) {
	val, err := decode(msg)
	if err != nil {
		return
	}
	items := []any{val}
	if arr, ok := val.([]any); ok {
		items = arr
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, it := range items {
		obj, _ := it.(map[string]any)
		id, hasID := obj["id"]
		if !hasID || id == nil {
			continue
		}
		method, _ := obj["method"].(string)
		k := idKey(id)
		v.pending[k] = append(v.pending[k], method)
	}
}

// Check validates one message received from the server.
func (v *Validator) Check(msg []byte) error {
	val, err := decode(msg)
	if err != nil {
		return fmt.Errorf("not a JSON text: %w", err)
	}
	arr, isBatch := val.([]any)
	if !isBatch {
		return v.checkOne(val)
	}
	var errs []error
	if !v.rev.has("JSONRPCBatchResponse") {
		errs = append(errs, fmt.Errorf("a JSON array, but revision %s has no batches", v.rev.revision))
	} else if err := v.rev.check("JSONRPCBatchResponse", withoutNullIDs(arr)); err != nil {
		errs = append(errs, err)
	}
	for i, it := range arr {
		if err := v.checkOne(it); err != nil {
			errs = append(errs, fmt.Errorf("batch item %d: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

// withoutNullIDs drops the errors with a null id from a batch answer:
// checkError checks those by hand (see there).
func withoutNullIDs(arr []any) []any {
	out := make([]any, 0, len(arr))
	for _, it := range arr {
		if obj, ok := it.(map[string]any); ok && obj["error"] != nil && obj["id"] == nil {
			if _, hasID := obj["id"]; hasID {
				continue
			}
		}
		out = append(out, it)
	}
	return out
}

func (v *Validator) checkOne(val any) error {
	obj, ok := val.(map[string]any)
	if !ok {
		return fmt.Errorf("a JSON-RPC message must be an object, not %s", compact(val))
	}
	_, hasID := obj["id"]
	_, hasResult := obj["result"]
	_, hasError := obj["error"]
	method, hasMethod := obj["method"].(string)
	switch {
	case hasMethod && hasID:
		return v.checkCall(v.rev.envelope("JSONRPCRequest"), method, "request", obj)
	case hasMethod:
		return v.checkCall(v.rev.envelope("JSONRPCNotification"), method, "notification", obj)
	case hasResult:
		return v.checkResult(obj)
	case hasError:
		return v.checkError(obj)
	}
	return fmt.Errorf("neither a request, a notification nor a response: %s", compact(val))
}

// checkCall validates a server-to-client request or a notification.
func (v *Validator) checkCall(envelope, method, kind string, obj map[string]any) error {
	if err := v.rev.check(envelope, obj); err != nil {
		return err
	}
	def, ok := v.rev.byMethod[method]
	if ext, isExt := v.rev.extensionCall(method); isExt {
		def, ok = ext, true
	}
	if !ok {
		return fmt.Errorf("%s %q is not defined by revision %s", kind, method, v.rev.revision)
	}
	return v.rev.check(def, obj)
}

func (v *Validator) checkResult(obj map[string]any) error {
	if err := v.rev.check(v.rev.envelope("JSONRPCResultResponse"), obj); err != nil {
		return err
	}
	method, err := v.answered(obj["id"])
	if err != nil {
		return err
	}
	def, ok := v.rev.resultType(method)
	if ext, isExt := v.rev.extensionResult(method, obj["result"]); isExt {
		def, ok = ext, true
	}
	if !ok {
		return fmt.Errorf("a result for %q, which revision %s does not define as a request", method, v.rev.revision)
	}
	// A multi round-trip request may be answered with an InputRequiredResult
	// instead of its own result type (2026-07-28).
	if res, _ := obj["result"].(map[string]any); res["resultType"] == "input_required" && v.rev.has("InputRequiredResult") {
		def = "InputRequiredResult"
	}
	if err := v.rev.check(def, obj["result"]); err != nil {
		return fmt.Errorf("result of %s: %w", method, err)
	}
	return nil
}

func (v *Validator) checkError(obj map[string]any) error {
	id := obj["id"]
	if id == nil {
		// JSON-RPC 2.0 §5 requires "id": null when the request's id could
		// not be read; no MCP schema admits null as a RequestId, so for
		// these the envelope is checked by hand and the error object
		// against the schema.
		if len(obj) != 3 || obj["jsonrpc"] != "2.0" {
			return fmt.Errorf("an error with a null id must hold exactly jsonrpc, id and error: %s", compact(obj))
		}
		if err := v.rev.check(v.rev.errorObject(), obj["error"]); err != nil {
			return err
		}
		return v.checkCode(obj, false)
	}
	if err := v.rev.check(v.rev.envelope("JSONRPCErrorResponse"), obj); err != nil {
		return err
	}
	if _, err := v.answered(id); err != nil {
		return err
	}
	return v.checkCode(obj, true)
}

// checkCode validates an error against the revision's definition of its
// code (2026-07-28 defines several), when there is one.
func (v *Validator) checkCode(obj map[string]any, hasID bool) error {
	e, _ := obj["error"].(map[string]any)
	code, _ := e["code"].(json.Number)
	def, ok := v.rev.byCode[code.String()]
	if !ok {
		return nil
	}
	if members(v.rev.defs[def], "properties")["error"] == nil {
		return v.rev.check(def, e) // an Error-object definition
	}
	if !hasID {
		return v.rev.check("/"+v.rev.defsKey+"/"+def+"/properties/error", e)
	}
	return v.rev.check(def, obj)
}

// answered consumes the pending request with this id and returns its method.
func (v *Validator) answered(id any) (string, error) {
	k := idKey(id)
	v.mu.Lock()
	defer v.mu.Unlock()
	q := v.pending[k]
	if len(q) == 0 {
		return "", fmt.Errorf("answers id %s, which the client did not send or which was already answered", compact(id))
	}
	if len(q) == 1 {
		delete(v.pending, k)
	} else {
		v.pending[k] = q[1:]
	}
	return q[0], nil
}

// idKey is a map key telling string ids from numeric ones.
func idKey(id any) string {
	if n, ok := id.(json.Number); ok {
		return "n:" + n.String()
	}
	return "j:" + compact(id)
}

// envelope picks the revision's name for an envelope definition: 2025-11-25
// renamed JSONRPCResponse/JSONRPCError to JSONRPCResultResponse and
// JSONRPCErrorResponse.
func (r *revSchema) envelope(name string) string {
	if r.has(name) {
		return name
	}
	switch name {
	case "JSONRPCResultResponse":
		return "JSONRPCResponse"
	case "JSONRPCErrorResponse":
		return "JSONRPCError"
	}
	return name
}

// errorObject names the schema of the "error" member.
func (r *revSchema) errorObject() string {
	if r.has("Error") {
		return "Error"
	}
	return "/" + r.defsKey + "/JSONRPCError/properties/error"
}

// resultType maps a request method to the definition of its result:
// FooRequest answers FooResult, or EmptyResult when there is no FooResult
// (ping, logging/setLevel, resources/subscribe).
func (r *revSchema) resultType(method string) (string, bool) {
	req, ok := r.byMethod[method]
	if !ok || !strings.HasSuffix(req, "Request") {
		return "", false
	}
	if res := strings.TrimSuffix(req, "Request") + "Result"; r.has(res) {
		return res, true
	}
	return "EmptyResult", true
}
