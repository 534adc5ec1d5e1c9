package wire

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Conn is the client end of a connection to the server under test: the
// memory transport's *memory.Client, a stdio subprocess or an HTTP client
// all fit in a few lines.
type Conn interface {
	// Send writes one message (a JSON text, without a line ending).
	Send(msg []byte) error
	// Recv returns the next message the server wrote, or ctx's error when
	// ctx ends first.
	Recv(ctx context.Context) ([]byte, error)
}

// GroupTimeout bounds the wait for one group of expected messages. It is a
// failure bound only: a healthy run never comes near it.
var GroupTimeout = 20 * time.Second

// Play runs tr over c: it sends each "> " line and, at each group of "< "
// lines, reads until every expected message has arrived. Every received
// message is also checked by v when v is not nil; schema failures do not
// stop the run and are all reported. Play returns nil when every message
// matched and validated.
func Play(ctx context.Context, c Conn, tr *Transcript, v *Validator) error {
	var schemaErrs []error
	known := map[string]string{}
	for i := 0; i < len(tr.Steps); {
		st := tr.Steps[i]
		if st.Send {
			data, err := recall(st.Data, known)
			if err != nil {
				return errors.Join(append(schemaErrs, tr.errorf(st, "send: %v", err))...)
			}
			if v != nil {
				v.Sent(data)
			}
			if err := c.Send(data); err != nil {
				return errors.Join(append(schemaErrs, tr.errorf(st, "send: %v", err))...)
			}
			i++
			continue
		}
		j := i
		for j < len(tr.Steps) && !tr.Steps[j].Send {
			j++
		}
		errs, err := tr.expect(ctx, c, tr.Steps[i:j], v, known)
		schemaErrs = append(schemaErrs, errs...)
		if err != nil {
			return errors.Join(append(schemaErrs, err)...)
		}
		i = j
	}
	return errors.Join(schemaErrs...)
}

func (tr *Transcript) errorf(st Step, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", tr.Path, st.Line, fmt.Sprintf(format, args...))
}

// expect reads until every step of group has matched. It returns the
// schema failures of the messages it read, and the mismatch or read error
// that stopped it.
func (tr *Transcript) expect(ctx context.Context, c Conn, group []Step, v *Validator, known map[string]string) ([]error, error) {
	ctx, cancel := context.WithTimeout(ctx, GroupTimeout)
	defer cancel()
	done := make([]bool, len(group))
	var schemaErrs []error
	for left := len(group); left > 0; left-- {
		got, err := c.Recv(ctx)
		if err != nil {
			return schemaErrs, tr.errorf(group[firstOpen(done)], "waiting for %s: %v", group[firstOpen(done)].Data, err)
		}
		var invalid error
		if v != nil {
			invalid = v.Check(got)
		}
		k, diff := pick(group, done, got, known)
		if k < 0 {
			if invalid != nil {
				schemaErrs = append(schemaErrs, tr.errorf(group[0], "schema: %s\n\tmessage: %s", invalid, got))
			}
			return schemaErrs, tr.errorf(group[firstOpen(done)], "unexpected message\n\tgot:  %s\n%s", got, diff)
		}
		done[k] = true
		if err := tr.judge(group[k], v, invalid, got); err != nil {
			schemaErrs = append(schemaErrs, err)
		}
	}
	return schemaErrs, nil
}

// judge turns a validation outcome into a failure, honouring the step's
// known deviation: a marked message must still fail validation.
func (tr *Transcript) judge(st Step, v *Validator, invalid error, got []byte) error {
	switch {
	case v == nil:
		return nil
	case st.Deviation == "" && invalid != nil:
		return tr.errorf(st, "schema: %s\n\tmessage: %s", invalid, got)
	case st.Deviation != "" && invalid == nil:
		return tr.errorf(st, "marked as a schema deviation (%s) but the message validates: remove the mark", st.Deviation)
	}
	return nil
}

// pick returns the index of the open expected step got matches: any open
// response, or the first open notification (notifications keep their
// order), and adds what that step captured to known. On no match it
// returns -1 and a description of the differences.
func pick(group []Step, done []bool, got []byte, known map[string]string) (int, string) {
	val, err := decode(got)
	if err != nil {
		return -1, fmt.Sprintf("\tthe message is not JSON: %v", err)
	}
	var why strings.Builder
	notificationSeen := false
	for k, st := range group {
		if done[k] {
			continue
		}
		isNote := isNotification(st.want)
		if isNote && notificationSeen {
			continue // an earlier notification is still due
		}
		notificationSeen = notificationSeen || isNote
		b := bindings{known: known, found: map[string]string{}}
		ok, at := match(st.want, val, &b)
		if ok {
			for name, v := range b.found {
				known[name] = v
			}
			return k, ""
		}
		fmt.Fprintf(&why, "\twant (line %d): %s\n\t\tfirst difference at %s\n", st.Line, st.Data, at)
	}
	return -1, why.String()
}

func isNotification(v any) bool {
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, hasID := obj["id"]
	_, hasMethod := obj["method"]
	return hasMethod && !hasID
}

func firstOpen(done []bool) int {
	for i, d := range done {
		if !d {
			return i
		}
	}
	return 0
}
