package wire

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/txtar"
)

// SessionFile is the name of the archive member holding the conversation.
const SessionFile = "session"

// Transcript is one parsed wire vector.
type Transcript struct {
	// Name is the file name without ".txtar"; Path the file it came from.
	Name, Path string
	// Revision is the protocol revision the vector speaks: the name of the
	// folder holding the file.
	Revision string
	// Spec is the spec section the vector checks, from its "spec:" line.
	Spec string
	// Steps is the conversation in order.
	Steps []Step
}

// Step is one line of the session.
type Step struct {
	// Line is the 1-based line of the step in the file.
	Line int
	// Send is true for "> " lines (written to the server), false for "< "
	// lines (expected from it).
	Send bool
	// Data is the line without its marker: the bytes to send, or the
	// expected message.
	Data []byte
	// Deviation, on an expected line, is the reason the message is known
	// to break the revision's schema (a "! schema: <reason>" line before
	// it). The runner then requires the failure, so a fixed bug shows up.
	Deviation string
	// want is Data decoded, for expected lines.
	want any
}

// LoadDir parses every *.txtar file under dir/<revision>/, ordered by
// revision and name.
func LoadDir(dir string) ([]*Transcript, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*", "*.txtar"))
	if err != nil {
		return nil, err
	}
	slices.Sort(paths)
	out := make([]*Transcript, 0, len(paths))
	for _, p := range paths {
		tr, err := Load(p)
		if err != nil {
			return nil, err
		}
		out = append(out, tr)
	}
	return out, nil
}

// Load parses one transcript file; its revision is its folder's name.
func Load(path string) (*Transcript, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	tr, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	tr.Path = path
	tr.Name = strings.TrimSuffix(filepath.Base(path), ".txtar")
	tr.Revision = filepath.Base(filepath.Dir(path))
	return tr, nil
}

// Parse reads a transcript from txtar bytes. The comment must have a
// "spec: <section>" line; the archive must hold exactly the file "session".
func Parse(data []byte) (*Transcript, error) {
	ar := txtar.Parse(data)
	tr := &Transcript{}
	for _, l := range strings.Split(string(ar.Comment), "\n") {
		if s, ok := strings.CutPrefix(strings.TrimSpace(l), "spec:"); ok {
			tr.Spec = strings.TrimSpace(s)
		}
	}
	if tr.Spec == "" {
		return nil, errors.New(`the comment must cite the spec section ("spec: <page>#<section>")`)
	}
	if len(ar.Files) != 1 || ar.Files[0].Name != SessionFile {
		return nil, fmt.Errorf("the archive must hold exactly one file, %q", SessionFile)
	}
	// Lines of the session file are counted from the file's start.
	first := 1 + bytes.Count(ar.Comment, []byte("\n")) + 1
	steps, err := parseSession(ar.Files[0].Data, first)
	if err != nil {
		return nil, err
	}
	tr.Steps = steps
	return tr, nil
}

func parseSession(data []byte, first int) ([]Step, error) {
	var steps []Step
	deviation := ""
	for i, raw := range bytes.Split(data, []byte("\n")) {
		line := first + i
		l := bytes.TrimRight(raw, " \t\r")
		if len(l) == 0 || l[0] == '#' {
			continue
		}
		var st Step
		switch {
		case bytes.HasPrefix(l, []byte("! schema: ")):
			deviation = string(l[len("! schema: "):])
			continue
		case bytes.HasPrefix(l, []byte("> ")):
			st = Step{Line: line, Send: true, Data: l[2:]}
		case bytes.HasPrefix(l, []byte("< ")):
			st = Step{Line: line, Data: l[2:]}
			v, err := decode(st.Data)
			if err != nil {
				return nil, fmt.Errorf("line %d: expected message is not JSON: %w", line, err)
			}
			st.want, st.Deviation, deviation = v, deviation, ""
		default:
			return nil, fmt.Errorf(`line %d: a line must start with "> ", "< ", "! schema: " or "#"`, line)
		}
		if st.Send && deviation != "" {
			return nil, fmt.Errorf(`line %d: "! schema:" must come right before a "< " line`, line)
		}
		steps = append(steps, st)
	}
	if deviation != "" {
		return nil, errors.New(`a "! schema:" line ends the session`)
	}
	if len(steps) == 0 {
		return nil, errors.New("the session is empty")
	}
	return steps, nil
}
