package sim

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"
)

// JSONLWriter is a trace subscriber that writes one JSON object per event.
// Call Flush when the run ends.
type JSONLWriter struct {
	w   *World
	out *bufio.Writer
	buf []byte
	err error
}

// NewJSONLWriter subscribes a JSONL writer to w's trace.
func NewJSONLWriter(w *World, out io.Writer) *JSONLWriter {
	j := &JSONLWriter{w: w, out: bufio.NewWriterSize(out, 64<<10)}
	w.Subscribe(j.write)
	return j
}

func (j *JSONLWriter) write(e *Event) {
	if j.err != nil {
		return
	}
	b := j.buf[:0]
	b = append(b, `{"seq":`...)
	b = strconv.AppendUint(b, e.Seq, 10)
	b = append(b, `,"at_ns":`...)
	b = strconv.AppendInt(b, int64(e.At), 10)
	b = append(b, `,"kind":"`...)
	b = append(b, e.Kind.String()...)
	b = append(b, '"')
	if e.Host != NoHost {
		b = append(b, `,"host":`...)
		b = strconv.AppendQuote(b, j.w.HostName(e.Host))
	}
	if e.Peer != NoHost {
		b = append(b, `,"peer":`...)
		b = strconv.AppendQuote(b, j.w.HostName(e.Peer))
	}
	if e.ID != 0 {
		b = append(b, `,"id":`...)
		b = strconv.AppendUint(b, e.ID, 10)
	}
	if e.Port != "" {
		b = append(b, `,"port":`...)
		b = strconv.AppendQuote(b, e.Port)
	}
	if e.Name != "" {
		b = append(b, `,"name":`...)
		b = strconv.AppendQuote(b, e.Name)
	}
	if e.Data != nil {
		b = append(b, `,"type":`...)
		b = strconv.AppendQuote(b, e.Data.TraceKind())
		data, err := json.Marshal(e.Data)
		if err != nil {
			j.err = err
			return
		}
		b = append(b, `,"data":`...)
		b = append(b, data...)
	}
	b = append(b, "}\n"...)
	j.buf = b
	_, j.err = j.out.Write(b)
}

// Flush writes what is buffered and returns the first error met.
func (j *JSONLWriter) Flush() error {
	if j.err != nil {
		return j.err
	}
	return j.out.Flush()
}

// TimelineWriter is a trace subscriber that prints one line per event for
// people to read: the event's sequence number (the "event N" that check
// offenses cite), its virtual time, the host where it happened, its kind
// (a node event's trace kind, such as raft.state, or the kernel's send,
// deliver, drop, refuse, timer or fault) and the rest:
//
//	   1043   12.000345s  etcd-2       deliver            <- etcd-1 raft #877
//	1040211  127.504118s  apiserver-1  api.admit          server=apiserver-1 user=...
//
// Columns are padded to a fixed width (the host column to the world's
// longest host name) and always separated by at least two spaces, so that
// a longer value shifts its own line but never runs into the next column.
type TimelineWriter struct {
	w   *World
	out *bufio.Writer
	buf []byte
	err error
	// Filter, when set, selects the events printed; the others are
	// skipped (they keep their sequence numbers).
	Filter func(e *Event) bool

	hosts, hostWidth int // len(w.Hosts()) when hostWidth was measured
}

// The timeline's column widths; the host column is as wide as the world's
// longest host name.
const (
	timelineSeqWidth  = 7  // right-aligned
	timelineTimeWidth = 11 // right-aligned: "600.000000s"
	timelineKindWidth = 17 // "kubelet.heartbeat"; longer kinds are rare
	timelineGap       = "  "
)

// NewTimelineWriter subscribes a timeline printer to w's trace.
func NewTimelineWriter(w *World, out io.Writer) *TimelineWriter {
	t := &TimelineWriter{w: w, out: bufio.NewWriterSize(out, 64<<10)}
	w.Subscribe(t.write)
	return t
}

// EventKindName is the kind a timeline prints for e: its Data's trace kind
// for a node event (such as "raft.state"), else the kernel kind ("send").
func EventKindName(e *Event) string {
	if e.Data != nil {
		return e.Data.TraceKind()
	}
	return e.Kind.String()
}

// HostNameWidth is the length of w's longest host name (at least 1, for
// the "-" of an event on no host).
func HostNameWidth(w *World) int {
	width := 1
	for _, h := range w.hosts {
		width = max(width, len(h.name))
	}
	return width
}

// AppendTimeline appends the timeline line of e (without newline) to b.
func AppendTimeline(b []byte, w *World, e *Event) []byte {
	return appendTimeline(b, w, e, HostNameWidth(w))
}

func appendTimeline(b []byte, w *World, e *Event, hostWidth int) []byte {
	start := len(b)
	b = strconv.AppendUint(b, e.Seq, 10)
	b = padLeft(b, start, timelineSeqWidth)
	b = append(b, timelineGap...)
	start = len(b)
	b = e.At.AppendText(b)
	b = padLeft(b, start, timelineTimeWidth)
	b = append(b, timelineGap...)
	start = len(b)
	b = append(b, w.HostName(e.Host)...)
	b = pad(b, start, hostWidth)
	b = append(b, timelineGap...)
	start = len(b)
	b = append(b, EventKindName(e)...)
	b = pad(b, start, timelineKindWidth)
	b = append(b, timelineGap...)
	switch e.Kind {
	case KindSend:
		b = append(b, "-> "...)
	case KindDeliver, KindDrop, KindRefuse:
		b = append(b, "<- "...)
	}
	if e.Peer != NoHost {
		b = append(b, w.HostName(e.Peer)...)
		b = append(b, ' ')
	}
	if e.Port != "" {
		b = append(b, e.Port...)
		b = append(b, ' ')
	}
	if e.ID != 0 && e.Kind != KindFault {
		b = append(b, '#')
		b = strconv.AppendUint(b, e.ID, 10)
		b = append(b, ' ')
	}
	if e.Name != "" {
		b = append(b, e.Name...)
		b = append(b, ' ')
	}
	if e.Data != nil {
		b = e.Data.AppendText(b)
	}
	for len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return b
}

// pad appends spaces until b[start:] is width bytes long.
func pad(b []byte, start, width int) []byte {
	for len(b)-start < width {
		b = append(b, ' ')
	}
	return b
}

// padLeft shifts b[start:] right with spaces until it is width bytes long.
func padLeft(b []byte, start, width int) []byte {
	n := width - (len(b) - start)
	if n <= 0 {
		return b
	}
	for i := 0; i < n; i++ {
		b = append(b, ' ')
	}
	copy(b[start+n:], b[start:len(b)-n])
	for i := start; i < start+n; i++ {
		b[i] = ' '
	}
	return b
}

func (t *TimelineWriter) write(e *Event) {
	if t.err != nil || (t.Filter != nil && !t.Filter(e)) {
		return
	}
	if n := len(t.w.hosts); n != t.hosts {
		t.hosts, t.hostWidth = n, HostNameWidth(t.w)
	}
	t.buf = append(appendTimeline(t.buf[:0], t.w, e, t.hostWidth), '\n')
	_, t.err = t.out.Write(t.buf)
}

// Flush writes what is buffered and returns the first error met.
func (t *TimelineWriter) Flush() error {
	if t.err != nil {
		return t.err
	}
	return t.out.Flush()
}
