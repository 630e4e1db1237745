package sim_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
)

const longHost = "a-very-long-host-name-for-the-timeline"

// timelineWorld is a world whose short host sends to a host with a long
// name, and whose long host adds a node event with a long kind, so that
// every column of the timeline meets a value wider than its usual width.
func timelineWorld() *sim.World {
	w := sim.NewWorld(7)
	long := w.MustAddHost(sim.HostSpec{Name: longHost, Boot: func(h *sim.Host) {
		h.Handle("chat", func(m *sim.Message) {
			h.Emit(note{"a-kind-far-longer-than-the-kind-column", m.Payload.(int)})
		})
	}}).ID()
	w.MustAddHost(sim.HostSpec{Name: "b", Boot: func(h *sim.Host) {
		h.After(time.Millisecond, "hello", func() { h.Send(long, "chat", 1) })
	}})
	return w
}

// timelineLine splits a timeline line into its columns: sequence number,
// time, host, kind and the rest, each column ending in two or more spaces.
var timelineLine = regexp.MustCompile(`^ *(\d+)  +(\d+\.\d{6}s)  +(\S+)  +(\S+)(?:  +(.*))?$`)

// TestTimelineColumns: every timeline line starts with the event's trace
// sequence number (the same as the JSONL's seq), then its time, host and
// kind, and the columns stay apart even when a host name or a kind is
// longer than its column.
func TestTimelineColumns(t *testing.T) {
	w := timelineWorld()
	var jsonl, text bytes.Buffer
	j := sim.NewJSONLWriter(w, &jsonl)
	tl := sim.NewTimelineWriter(w, &text)
	w.Run(sim.Time(time.Second))
	require.NoError(t, j.Flush())
	require.NoError(t, tl.Flush())

	type rec struct {
		Seq  uint64 `json:"seq"`
		Kind string `json:"kind"`
		Type string `json:"type"`
		Host string `json:"host"`
	}
	var recs []rec
	for _, l := range strings.Split(strings.TrimSpace(jsonl.String()), "\n") {
		var r rec
		require.NoError(t, json.Unmarshal([]byte(l), &r))
		recs = append(recs, r)
	}
	lines := strings.Split(strings.TrimRight(text.String(), "\n"), "\n")
	require.Len(t, lines, len(recs))
	require.GreaterOrEqual(t, len(lines), 3, "a timer, a send, a delivery and a node event at least")
	sawLongKind, sawLongHost := false, false
	for i, l := range lines {
		m := timelineLine.FindStringSubmatch(l)
		require.NotNil(t, m, "line %q", l)
		assert.Equal(t, strconv.FormatUint(recs[i].Seq, 10), m[1], l)
		kind := recs[i].Kind
		if recs[i].Type != "" {
			kind = recs[i].Type
		}
		host := recs[i].Host
		if host == "" {
			host = "-"
		}
		assert.Equal(t, host, m[3], l)
		assert.Equal(t, kind, m[4], l)
		sawLongKind = sawLongKind || len(kind) > 20
		sawLongHost = sawLongHost || host == longHost
	}
	assert.True(t, sawLongKind && sawLongHost, "the test meets a long kind and a long host:\n%s", text.String())
	// The host column is as wide as the longest host name: the kind
	// column starts at the same place on every line.
	at := -1
	for _, l := range lines {
		m := timelineLine.FindStringSubmatchIndex(l)
		if at == -1 {
			at = m[8]
		}
		assert.Equal(t, at, m[8], "kind column of %q", l)
	}
}

// TestTimelineFilter: a filter prints only the events it keeps, and they
// keep their trace sequence numbers.
func TestTimelineFilter(t *testing.T) {
	w := timelineWorld()
	var all, some bytes.Buffer
	a := sim.NewTimelineWriter(w, &all)
	s := sim.NewTimelineWriter(w, &some)
	s.Filter = func(e *sim.Event) bool { return e.Kind == sim.KindDeliver }
	w.Run(sim.Time(time.Second))
	require.NoError(t, a.Flush())
	require.NoError(t, s.Flush())
	var want []string
	for _, l := range strings.Split(strings.TrimRight(all.String(), "\n"), "\n") {
		if timelineLine.FindStringSubmatch(l)[4] == "deliver" {
			want = append(want, l)
		}
	}
	require.NotEmpty(t, want)
	assert.Equal(t, strings.Join(want, "\n")+"\n", some.String())
	assert.NotRegexp(t, `^ *0  `, some.String(), "the first event is not a delivery")
}

// TestAppendTimelineRightAligns: sequence numbers and times are right
// aligned, so that their digits line up.
func TestAppendTimelineRightAligns(t *testing.T) {
	w := sim.NewWorld(1)
	w.MustAddHost(sim.HostSpec{Name: "h", Boot: func(*sim.Host) {}})
	e := &sim.Event{Seq: 42, At: sim.Time(1500 * time.Millisecond), Kind: sim.KindFault, Host: 0, Peer: sim.NoHost, Name: "crash"}
	assert.Equal(t, "     42    1.500000s  h  fault              crash", string(sim.AppendTimeline(nil, w, e)))
	e = &sim.Event{Seq: 123456789, At: sim.Time(12345 * time.Second), Kind: sim.KindFault, Host: sim.NoHost, Peer: sim.NoHost, Name: "heal"}
	assert.Equal(t, "123456789  12345.000000s  -  fault              heal", string(sim.AppendTimeline([]byte("x"), w, e))[1:])
}
