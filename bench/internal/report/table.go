package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Table is results laid out for people.
type Table struct {
	Header []string
	Rows   [][]string
}

// NewTable makes one row per result, in the order given. For each reference
// server named in refs it adds two columns: throughput and server CPU per
// call relative to that server's result for the same configuration.
func NewTable(results []Result, refs ...string) *Table {
	t := &Table{Header: []string{"server", "C", "payload", "calls/s", "p50 µs", "p99 µs", "CPU µs/call", "peak RSS MiB"}}
	for _, ref := range refs {
		t.Header = append(t.Header, "calls/s ÷ "+ref, "CPU ÷ "+ref)
	}
	t.Header = append(t.Header, "errors")
	byKey := map[string]map[Key]*Result{}
	for i := range results {
		r := &results[i]
		if byKey[r.Server] == nil {
			byKey[r.Server] = map[Key]*Result{}
		}
		byKey[r.Server][r.Key()] = r
	}
	for i := range results {
		r := &results[i]
		row := []string{r.Server, fmt.Sprint(r.Concurrency), Bytes(r.Payload)}
		if r.Failure != "" {
			row = append(row, "–", "–", "–", "–", "–")
		} else {
			row = append(row, fmt.Sprintf("%.0f", r.CallsPerSec), micros(r.P50us), micros(r.P99us),
				fmt.Sprintf("%.1f", r.ServerCPUus), fmt.Sprintf("%.1f", r.PeakRSSMiB))
		}
		for _, ref := range refs {
			base := byKey[ref][r.Key()]
			row = append(row, ratio(r, base, func(x *Result) float64 { return x.CallsPerSec }),
				ratio(r, base, func(x *Result) float64 { return x.ServerCPUus }))
		}
		row = append(row, errorCell(r))
		t.Rows = append(t.Rows, row)
	}
	return t
}

func ratio(r, base *Result, f func(*Result) float64) string {
	if base == nil || r.Failure != "" || base.Failure != "" || f(base) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", f(r)/f(base))
}

func errorCell(r *Result) string {
	switch {
	case r.Failure != "":
		return "failed"
	case r.Errors > 0:
		return fmt.Sprint(r.Errors)
	}
	return "0"
}

func micros(us float64) string {
	if us < 100 {
		return fmt.Sprintf("%.1f", us)
	}
	return fmt.Sprintf("%.0f", us)
}

// Bytes formats a payload size: 16 B, 64 KiB, 1 MiB.
func Bytes(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// WriteText writes t aligned for a terminal.
func (t *Table) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, row := range append([][]string{t.Header}, t.Rows...) {
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	return tw.Flush()
}

// WriteMarkdown writes t as a Markdown table, numbers right-aligned.
func (t *Table) WriteMarkdown(w io.Writer) error {
	align := make([]string, len(t.Header))
	for i := range align {
		align[i] = "---:"
	}
	align[0] = ":---"
	var b strings.Builder
	for _, row := range [][]string{t.Header, align} {
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	for _, row := range t.Rows {
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
