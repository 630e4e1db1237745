package apiserver

import (
	"time"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// A watch stream's messages are one-way sends on a lossy fabric, standing
// in for the frames of one HTTP response on one TCP connection. A lost
// frame in the middle of a stream is noticed by the client at the next
// one (a gap: the stream broke) and the client watches again. The last
// frame is different: after an ERROR event (410 Gone), or when the server
// closes the stream (apiwire.Closed), the response ends, and nothing
// follows that could reveal the loss. On a real
// connection that frame and the end of the response still arrive, because
// TCP retransmits what a lossy link drops; only a dead connection loses
// them, and then the client's health check ends the stream. So the server
// sends a stream's final frame again, with TCP's doubling retransmission
// timeout, until the client's cancel (which the client sends when its
// stream ends) says it arrived, or until TCP would declare the connection
// dead. That takes long: Linux retransmits tcp_retries2 (15) times, the
// timeout doubling from TCP_RTO_MIN (200 ms) to TCP_RTO_MAX (120 s), and
// gives up one timeout after the last copy, about 924.6 s after the first
// (net/ipv4/tcp_timer.c, tcp_write_timeout and retransmits_timed_out;
// TCP_RETR2 in include/net/tcp.h). A partition that heals within that
// time still delivers the frame: the client's connection, whose health
// pings are answered again, never learns otherwise that its stream ended.
const (
	// finalFrameRTO is the first retransmission timeout, TCP_RTO_MIN
	// (sim.RetransmitRTO), which a LAN connection's measured RTO rounds
	// up to; it doubles up to sim.RetransmitMaxRTO.
	finalFrameRTO = sim.RetransmitRTO
	// finalFrameRetries is tcp_retries2's default: how many times the
	// frame is sent again before the connection counts as dead.
	finalFrameRetries = 15
)

// closingStream is a stream ended by a final frame that the client has not
// yet acknowledged with its cancel.
type closingStream struct {
	to    sim.HostID
	port  string
	id    uint64
	frame *apiwire.WatchEvent
	tries int
	timer *sim.Timer
}

// endStream ends w with an ERROR frame carrying st.
func (s *Server) endStream(w *watcher, st *apiwire.Status) {
	s.finishStream(w, &apiwire.WatchEvent{Type: apiwire.Error, Status: st})
}

// closeStream ends w cleanly: the end of the watch response, after which a
// client resumes from the last resourceVersion it saw.
func (s *Server) closeStream(w *watcher) {
	s.finishStream(w, &apiwire.WatchEvent{Type: apiwire.Closed})
}

// finishStream sends w's final frame ev and keeps sending it until the
// client acknowledges it.
func (s *Server) finishStream(w *watcher, ev *apiwire.WatchEvent) {
	w.emit(ev)
	cs := &closingStream{to: w.to, port: w.port, id: w.id, frame: ev, tries: 1}
	cs.timer = s.h.After(finalFrameRTO, "watch-final-frame", func() { s.resendFinal(cs) })
	s.closing = append(s.closing, cs)
}

// resendFinal sends cs's final frame again, or, one timeout after the
// last of finalFrameRetries copies, gives the connection up for dead.
func (s *Server) resendFinal(cs *closingStream) {
	if cs.tries > finalFrameRetries {
		s.forgetClosing(cs.to, cs.port, cs.id)
		return
	}
	s.h.Send(cs.to, cs.port, cs.frame)
	cs.tries++
	cs.timer.Reset(finalFrameTimeout(cs.tries))
}

// finalFrameTimeout is the retransmission timeout after the frame was
// sent tries times: TCP's doubling from TCP_RTO_MIN, capped at
// TCP_RTO_MAX.
func finalFrameTimeout(tries int) time.Duration {
	rto := finalFrameRTO
	for i := 1; i < tries && rto < sim.RetransmitMaxRTO; i++ {
		rto *= 2
	}
	return min(rto, sim.RetransmitMaxRTO)
}

// forgetClosing stops retransmitting the final frame of stream id of host
// to on port, and reports whether there was one.
func (s *Server) forgetClosing(to sim.HostID, port string, id uint64) bool {
	for i, cs := range s.closing {
		if cs.to == to && cs.port == port && cs.id == id {
			cs.timer.Stop()
			s.closing = append(s.closing[:i], s.closing[i+1:]...)
			return true
		}
	}
	return false
}
