package load

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestTemplate(t *testing.T) {
	for _, size := range []int{1, 12, 13, 16, 65536} {
		tmpl := newCallTemplate(size)
		for _, id := range []uint64{idBase, idBase + 12345} {
			var req struct {
				ID     uint64 `json:"id"`
				Params struct {
					Arguments struct{ Text string } `json:"arguments"`
				} `json:"params"`
			}
			if err := json.Unmarshal(tmpl.patch(id), &req); err != nil {
				t.Fatalf("size %d: %v", size, err)
			}
			text := req.Params.Arguments.Text
			if req.ID != id || len(text) != size || !tmpl.check(id, text) {
				t.Errorf("size %d id %d: got id %d, %d bytes of text", size, id, req.ID, len(text))
			}
			if size > 13 && tmpl.check(id+1, text) {
				t.Errorf("size %d: text of %d passes as %d's", size, id, id+1)
			}
		}
	}
}

func TestHistQuantiles(t *testing.T) {
	var h Hist
	for i := 1; i <= 10000; i++ {
		h.Record(time.Duration(i) * time.Microsecond)
	}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 5000 * time.Microsecond}, {0.99, 9900 * time.Microsecond}, {1, 10000 * time.Microsecond}} {
		got := h.Quantile(c.q)
		if diff := float64(got-c.want) / float64(c.want); diff > 0.016 || diff < -0.016 {
			t.Errorf("q%v = %v, want %v", c.q, got, c.want)
		}
	}
	if h.Count() != 10000 || h.Max() != 10*time.Millisecond {
		t.Errorf("count %d max %v", h.Count(), h.Max())
	}
}

func TestBuckets(t *testing.T) {
	prev := -1
	for v := uint64(0); v < 1<<20; v += 1 + v/300 {
		b := bucketOf(v)
		if b < prev {
			t.Fatalf("bucketOf(%d) = %d < %d", v, b, prev)
		}
		prev = b
		if m := midpointOf(b); v > 128 && (float64(m) < float64(v)*0.98 || float64(m) > float64(v)*1.02) {
			t.Fatalf("value %d in bucket %d with midpoint %d", v, b, m)
		}
	}
}

func loadFake(t *testing.T, f *fakeServer, c int) *Stats {
	t.Helper()
	if _, err := Handshake(f, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	opened := 0
	st, err := Run(f, Config{
		Concurrency: c, Payload: 100,
		Warmup: 20 * time.Millisecond, Duration: 100 * time.Millisecond,
		OnWindow: func(bool) { opened++ },
	})
	if err != nil {
		t.Fatal(err)
	}
	if opened != 2 {
		t.Errorf("OnWindow called %d times, want 2", opened)
	}
	return st
}

func TestRunClean(t *testing.T) {
	for _, c := range []int{1, 16} {
		st := loadFake(t, newFakeServer(), c)
		if st.Calls == 0 || st.Errors != 0 || st.Latency.Count() != st.Calls {
			t.Errorf("C=%d: %d calls, %d errors %q, %d latencies", c, st.Calls, st.Errors, st.ErrorSamples, st.Latency.Count())
		}
		if st.Sent < st.Calls {
			t.Errorf("C=%d: sent %d < calls %d", c, st.Sent, st.Calls)
		}
	}
}

func TestRunCountsWrongAnswers(t *testing.T) {
	f := newFakeServer()
	f.corruptEvery = 10
	st := loadFake(t, f, 4)
	if st.Errors == 0 || len(st.ErrorSamples) == 0 || !strings.Contains(st.ErrorSamples[0], "differ") {
		t.Fatalf("%d errors %q", st.Errors, st.ErrorSamples)
	}
}

func TestTemplateMeta(t *testing.T) {
	tmpl := newCallTemplateMeta(20, `{"k":"v"}`)
	want := `{"jsonrpc":"2.0","id":100000000007,"method":"tools/call","params":{"_meta":{"k":"v"},"name":"echo","arguments":{"text":"100000000007mnopqrst"}}}`
	if got := string(tmpl.patch(idBase + 7)); got != want {
		t.Errorf("frame\n%s\nwant\n%s", got, want)
	}
	if !tmpl.check(idBase+7, "100000000007mnopqrst") {
		t.Error("check fails on the sent text")
	}
}
