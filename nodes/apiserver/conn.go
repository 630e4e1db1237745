package apiserver

import (
	"time"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// A client's request reaches the server on a TCP connection, which hides a
// lossy link: the client's kernel retransmits a lost request, the server's
// a lost reply, and the server reads each request once. kubesim's clients
// retransmit an unanswered request themselves (sim.CallOptions.Retransmit:
// every copy carries the same *apiwire.Request), and the fabric may
// duplicate a message, so the server recognises the copies of a request by
// identity: a copy of a request in progress is dropped (its reply is on
// its way once served), and a copy of a request already answered gets the
// same reply again (its first reply was lost). Serving a copy again would
// apply a write twice, or answer an update whose original applied with a
// 409 Conflict.
//
// answerFor bounds the memory: an answer is forgotten this long after it
// was sent. The client sends copies of an unanswered request no more than
// sim.RetransmitMaxRTO (TCP_RTO_MAX, 120 s) apart, so a copy prompted by a
// lost reply arrives within that, plus a link's latency, of the reply;
// 10 s covers the latency with room to spare (a paused client host is the
// exception: the kernel of a real one would have kept the reply). After
// answerFor, the client has either had the reply or lost the connection
// (and with it the call, whose outcome it then treats as unknown). A
// request in progress is remembered until it is answered; the server
// answers every request it serves (a slow one with 504 Timeout at the etcd
// request timeout).
const answerFor = sim.RetransmitMaxRTO + 10*time.Second

// seenRequest is a request received, with its answer once sent.
type seenRequest struct {
	req  *apiwire.Request
	resp *apiwire.Response // nil while in progress
	at   sim.Time          // when answered
}

// duplicate reports whether req, received as q, is a copy of a request
// already received, and remembers it; a copy of an answered request is
// answered again with the same reply.
func (s *Server) duplicate(req *apiwire.Request, q *sim.Request) bool {
	s.forgetAnswers()
	sr := s.seen[req]
	if sr == nil {
		s.seen[req] = &seenRequest{req: req}
		return false
	}
	if sr.resp != nil {
		q.Reply(sr.resp)
	}
	return true
}

// answer records resp as req's answer, for its copies.
func (s *Server) answer(req *apiwire.Request, resp *apiwire.Response) {
	sr := s.seen[req]
	if sr == nil || sr.resp != nil {
		return // not remembered (a value request), or answered already
	}
	sr.resp, sr.at = resp, s.h.Now()
	s.answered = append(s.answered, sr)
}

// forgetAnswers drops the answers sent more than answerFor ago.
func (s *Server) forgetAnswers() {
	now := s.h.Now()
	drop := 0
	for drop < len(s.answered) && now.Sub(s.answered[drop].at) > answerFor {
		delete(s.seen, s.answered[drop].req)
		s.answered[drop] = nil
		drop++
	}
	s.answered = s.answered[drop:]
}
