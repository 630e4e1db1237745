package kubelet

import (
	"strconv"
	"strings"
	"time"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apptrace"
)

// AppPort is the port of a node's host that carries application traffic:
// requests to the IPs of the node's pods, which their applications answer,
// and requests that enter the cluster through the node for a pod on
// another node, which the node forwards.
const AppPort = "app"

// appForwardPort receives the replies of the requests the node forwards.
const appForwardPort = "app-forward-reply"

// DefaultForwardTimeout bounds a forwarded request whose AppRequest names
// no timeout.
const DefaultForwardTimeout = 10 * time.Second

// AppRequest is an application request to PodIP:Port, sent to the AppPort
// of a node's host. The node that runs the pod (the one whose pod CIDR
// holds PodIP, see HostOfPodIP) has its application answer with an
// AppReply; any other node forwards it there and relays the reply, as the
// node a request from outside the cluster enters through does after its
// kube-proxy rules rewrote the destination. Every port of a pod reaches
// its first container's application.
type AppRequest struct {
	PodIP string
	Port  int32
	// Timeout is the client's: a forwarding node gives up on the pod's
	// node after it (DefaultForwardTimeout when zero). The pod's node
	// ignores it.
	Timeout time.Duration
}

// The answers of an AppReply.
const (
	// AnswerOK: the application answered with a success.
	AnswerOK = "ok"
	// AnswerError: the application answered with an error (an HTTP 503:
	// it is still warming up, AnnotationWarmup).
	AnswerError = "error"
	// AnswerRefused: the connection was refused, or reset (Reason says
	// why).
	AnswerRefused = "refused"
)

// Why a request was refused (AppReply.Reason): the trace's own reasons.
const (
	RefusedNoPod      = apptrace.RefusedNoPod
	RefusedNotRunning = apptrace.RefusedNotRunning
	RefusedShutdown   = apptrace.RefusedShutdown
	RefusedReset      = apptrace.RefusedReset
)

// The states of the pod a request reached, as its node saw it when the
// request arrived (AppReply.State).
const (
	// PodRunning: its container runs and the kubelet is not stopping it.
	PodRunning = "running"
	// PodTerminating: the kubelet is stopping its container (its preStop
	// sleep runs, or SIGTERM came) and it has not exited yet.
	PodTerminating = "terminating"
	// PodNotRunning: its container is creating or exited.
	PodNotRunning = "not-running"
	// PodAbsent: no pod of the node has the IP.
	PodAbsent = "absent"
)

// AppReply is a node's answer to an AppRequest. A hung application, a dead,
// paused or partitioned node send none: the client times out.
type AppReply struct {
	// Answer is AnswerOK, AnswerError or AnswerRefused; Reason says why a
	// request was refused.
	Answer string
	Reason string
	// Pod is the pod's namespace/name and UID its UID ("" when absent).
	Pod, UID string
	// State is the pod's state when the request arrived (PodRunning, ...).
	State string
	// Ready is the pod's readiness as its kubelet last reported it
	// (spoketrace.PodReady) when the request arrived.
	Ready bool
}

// HostOfPodIP returns the host whose pod CIDR holds ip: pod IPs are
// 10.244.<host>.<n> (allocateIP), so, as a cluster's routes send a pod
// CIDR to its node, the third octet names the host (a world of more than
// 256 hosts would alias them). It reports false for an address outside
// the scheme or a host w does not have.
func HostOfPodIP(w *sim.World, ip string) (sim.HostID, bool) {
	rest, ok := strings.CutPrefix(ip, "10.244.")
	if !ok {
		return 0, false
	}
	octet, _, ok := strings.Cut(rest, ".")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(octet)
	if err != nil || n < 0 || n >= len(w.Hosts()) {
		return 0, false
	}
	return sim.HostID(n), true
}

// startNetstack installs the node's application traffic: AppPort and the
// client of the requests it forwards. It belongs to the host incarnation,
// not to the kubelet process: a kubelet restart does not touch it.
func (k *Kubelet) startNetstack() {
	k.forward = sim.NewRPC(k.h, appForwardPort)
	sim.Serve(k.h, AppPort, k.serveApp)
}

func (k *Kubelet) serveApp(q *sim.Request) {
	req, ok := q.Body.(*AppRequest)
	if !ok {
		return
	}
	to, ok := HostOfPodIP(k.h.World(), req.PodIP)
	switch {
	case !ok:
		q.Reply(&AppReply{Answer: AnswerRefused, Reason: RefusedNoPod, State: PodAbsent})
	case to != k.h.ID():
		timeout := req.Timeout
		if timeout <= 0 {
			timeout = DefaultForwardTimeout
		}
		fwd := *req
		k.forward.Call(to, AppPort, &fwd, timeout, func(resp any, err error) {
			if err == nil {
				q.Reply(resp)
			}
		})
	default:
		k.answerApp(q, req)
	}
}

// answerApp has the application of the pod at req.PodIP answer: at once
// with a refusal, after its answer time (AnnotationLoad) with a success
// (an error while it warms up), or never when it hangs.
func (k *Kubelet) answerApp(q *sim.Request, req *AppRequest) {
	sb := k.rt.byIP[req.PodIP]
	if sb == nil {
		q.Reply(&AppReply{Answer: AnswerRefused, Reason: RefusedNoPod, State: PodAbsent})
		return
	}
	reply := &AppReply{Pod: sb.key, UID: string(sb.uid), Ready: k.readyView(sb)}
	var in *instance
	if len(sb.records) > 0 {
		in = sb.records[0].cur
	}
	if in == nil || in.state != stateRunning {
		reply.Answer, reply.Reason, reply.State = AnswerRefused, RefusedNotRunning, PodNotRunning
		q.Reply(reply)
		return
	}
	now := k.h.Now()
	reply.State = PodRunning
	if in.stopping {
		reply.State = PodTerminating
	}
	switch {
	case in.hung(now):
		return // the kernel accepts the connection; nothing answers on it
	case in.shutDown(now):
		reply.Answer, reply.Reason = AnswerRefused, RefusedShutdown
		q.Reply(reply)
		return
	}
	reply.Answer = AnswerOK
	if now < in.startedAt.Add(in.app.warmup) {
		reply.Answer = AnswerError
	}
	k.h.After(in.app.answerTime(now), "app-answer", func() {
		switch {
		case in.state != stateRunning:
			reply.Answer, reply.Reason = AnswerRefused, RefusedReset
		case in.hung(k.h.Now()):
			return
		}
		q.Reply(reply)
	})
}

// readyView is the readiness the kubelet process last reported for sb's
// pod, false when it does not track the pod.
func (k *Kubelet) readyView(sb *sandbox) bool {
	proc := k.procs.Current()
	if proc == nil || proc.stopped {
		return false
	}
	ps := proc.tracked[sb.uid]
	return ps != nil && ps.readyView
}
