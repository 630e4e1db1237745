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

// TimelineWriter is a trace subscriber that prints one line per event,
// virtual time first, for people to read:
//
//	12.000345s  etcd-2    deliver  <- etcd-1 raft #1043
type TimelineWriter struct {
	w   *World
	out *bufio.Writer
	buf []byte
	err error
}

// NewTimelineWriter subscribes a timeline printer to w's trace.
func NewTimelineWriter(w *World, out io.Writer) *TimelineWriter {
	t := &TimelineWriter{w: w, out: bufio.NewWriterSize(out, 64<<10)}
	w.Subscribe(t.write)
	return t
}

// AppendTimeline appends the timeline line of e (without newline) to b.
func AppendTimeline(b []byte, w *World, e *Event) []byte {
	b = pad(e.At.AppendText(b), len(b), 13)
	start := len(b)
	b = append(b, ' ')
	b = append(b, w.HostName(e.Host)...)
	b = pad(b, start, 12)
	start = len(b)
	b = append(b, ' ')
	if e.Data != nil {
		b = append(b, e.Data.TraceKind()...)
	} else {
		b = append(b, e.Kind.String()...)
	}
	b = pad(b, start, 14)
	switch e.Kind {
	case KindSend:
		b = append(b, " -> "...)
	case KindDeliver, KindDrop, KindRefuse:
		b = append(b, " <- "...)
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

func pad(b []byte, start, width int) []byte {
	for len(b)-start < width {
		b = append(b, ' ')
	}
	return b
}

func (t *TimelineWriter) write(e *Event) {
	if t.err != nil {
		return
	}
	t.buf = append(AppendTimeline(t.buf[:0], t.w, e), '\n')
	_, t.err = t.out.Write(t.buf)
}

// Flush writes what is buffered and returns the first error met.
func (t *TimelineWriter) Flush() error {
	if t.err != nil {
		return t.err
	}
	return t.out.Flush()
}
