package kubelet

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/internal/apitest"
	"github.com/kubesim/kubesim/sim"
)

// appResult is what a test client got for one application request.
type appResult struct {
	reply   *AppReply
	err     error
	latency time.Duration
}

// client returns the RPC client of the test's client host, adding the
// host on first use.
func (e *env) client() *sim.RPC {
	h, ok := e.W.HostByName("client")
	if !ok {
		h = e.AddHost("client", func(h *sim.Host) { h.Expose("rpc", sim.NewRPC(h, "test-reply")) })
	}
	return h.Exposed("rpc").(*sim.RPC)
}

// send sends an application request for ip to via's AppPort now, with a
// 5 s timeout, and returns where its result will be.
func (e *env) send(via *sim.Host, ip string) *appResult {
	res := &appResult{}
	start := e.W.Now()
	e.client().Call(via.ID(), AppPort, &AppRequest{PodIP: ip, Port: 8080, Timeout: 5 * time.Second}, 5*time.Second, func(resp any, err error) {
		res.latency, res.err = e.W.Now().Sub(start), err
		if err == nil {
			res.reply = resp.(*AppReply)
		}
	})
	return res
}

// request sends one request to node-1 and runs until its result.
func (e *env) request(ip string) *appResult {
	e.t.Helper()
	res := e.send(e.node, ip)
	e.runUntil(6*time.Second, "the request's result", func() bool { return res.reply != nil || res.err != nil })
	return res
}

// podIP runs until the pod has an IP in the API and returns it.
func (e *env) podIP(name string) string {
	e.t.Helper()
	e.runUntil(30*time.Second, "pod running", func() bool {
		p := e.getPod(name)
		return p != nil && p.Status.PodIP != "" && p.Status.Phase == model.PodRunning
	})
	return e.getPod(name).Status.PodIP
}

func withPreStop(s int64) func(*model.Pod) {
	return func(p *model.Pod) {
		p.Spec.Containers[0].Lifecycle = &model.Lifecycle{PreStop: &model.LifecycleHandler{Sleep: &model.SleepAction{Seconds: s}}}
	}
}

// TestAppAnswers: a running application answers after its answer time (a
// busy window's while one holds), an error while it warms up; a request
// to an address without a pod, or to a pod whose container is not
// running, is refused at once; a hung application never answers.
func TestAppAnswers(t *testing.T) {
	e := newEnv(t, 3, 1, Config{})
	e.create(newPod("web", map[string]string{AnnotationLoad: "60s-70s=400ms", AnnotationStartLatency: "1s"}))
	ip := e.podIP("web")

	r := e.request(ip)
	require.NoError(t, r.err)
	require.Equal(t, AnswerOK, r.reply.Answer)
	require.Equal(t, PodRunning, r.reply.State)
	require.True(t, r.reply.Ready)
	require.Equal(t, "default/web", r.reply.Pod)
	require.GreaterOrEqual(t, r.latency, AppAnswerTime)
	require.Less(t, r.latency, AppAnswerTime+10*time.Millisecond, "the answer time and two network hops")

	e.runUntil(time.Minute, "the busy window", func() bool { return e.W.Now() >= sim.Time(61*time.Second) })
	r = e.request(ip)
	require.Equal(t, AnswerOK, r.reply.Answer)
	require.GreaterOrEqual(t, r.latency, 400*time.Millisecond, "answered slowly in the busy window")
	require.Less(t, r.latency, 410*time.Millisecond)

	r = e.request("10.244.3.250")
	require.Equal(t, &AppReply{Answer: AnswerRefused, Reason: RefusedNoPod, State: PodAbsent}, r.reply, "no pod has this IP")

	e.create(newPod("warm", map[string]string{AnnotationWarmup: "30s", AnnotationStartLatency: "1s"}))
	r = e.request(e.podIP("warm"))
	require.Equal(t, AnswerError, r.reply.Answer, "still warming up")

	e.create(newPod("once", map[string]string{AnnotationExitAfter: "2s", AnnotationExitCode: "0", AnnotationStartLatency: "1s"},
		withPolicy(model.RestartPolicyNever)))
	onceIP := e.podIP("once")
	e.runUntil(10*time.Second, "the container exited", func() bool { s, _ := e.rec.stops("default/once"); return len(s) == 1 })
	r = e.request(onceIP)
	require.Equal(t, AnswerRefused, r.reply.Answer, "a stopped container refuses")
	require.Equal(t, RefusedNotRunning, r.reply.Reason)
	require.Equal(t, PodNotRunning, r.reply.State)

	e.create(newPod("hang", map[string]string{AnnotationHangAfter: "1s", AnnotationStartLatency: "1s"}))
	hangIP := e.podIP("hang")
	e.Run(2 * time.Second)
	r = e.request(hangIP)
	require.ErrorIs(t, r.err, sim.ErrTimeout, "a hung application never answers")
}

// TestAppDeadNodeTimesOut: a request forwarded through another node
// reaches the pod's node and is answered; once that node is down, the
// request times out.
func TestAppDeadNodeTimesOut(t *testing.T) {
	e := newEnv(t, 4, 1, Config{})
	other := e.W.MustAddHost(sim.HostSpec{Name: "node-2", Role: apitest.RoleClient, Boot: Boot(Config{Node: "node-2", Servers: e.Servers}), Processes: []string{Process}})
	e.create(newPod("web", map[string]string{AnnotationStartLatency: "1s"}))
	ip := e.podIP("web")

	res := e.send(other, ip)
	e.runUntil(6*time.Second, "the forwarded request's result", func() bool { return res.reply != nil || res.err != nil })
	require.NoError(t, res.err)
	require.Equal(t, AnswerOK, res.reply.Answer, "node-2 forwarded it to node-1's pod")
	require.Equal(t, "default/web", res.reply.Pod)

	e.W.Inject(sim.Fault{Kind: sim.FaultCrash, Targets: [][]string{{"node-1"}}})
	res = e.send(other, ip)
	e.runUntil(6*time.Second, "the forwarded request's result", func() bool { return res.reply != nil || res.err != nil })
	require.True(t, errors.Is(res.err, sim.ErrTimeout), "the pod's node is dead: no answer")
}

// TestPreStopDelaysSigterm: on deletion a container with a preStop sleep
// keeps serving through the sleep (its pod terminating), then gets
// SIGTERM, stops accepting at once and exits after its shutdown time;
// the kubelet-no-prestop ablation sends SIGTERM at once.
func TestPreStopDelaysSigterm(t *testing.T) {
	for _, tc := range []struct {
		name     string
		abl      ablation.Set
		preStop  int64 // traced
		sigtermS time.Duration
	}{
		{"prestop", ablation.Set{}, 5, 5 * time.Second},
		{"ablation-skips-prestop", ablation.Of(ablation.KubeletNoPreStop), 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 7, 1, Config{Ablations: tc.abl})
			e.create(newPod("web", map[string]string{AnnotationStartLatency: "1s", AnnotationShutdown: "2s"}, withPreStop(5), withGrace(30)))
			ip := e.podIP("web")
			e.deletePod("web")
			kills, at := e.rec.kills("default/web")
			require.Len(t, kills, 1)
			require.Equal(t, tc.preStop, kills[0].PreStop)
			require.Equal(t, int64(30), kills[0].Grace)
			t0 := at[0]

			// Just before SIGTERM (or at once, without the hook).
			if tc.sigtermS > 0 {
				e.W.Run(t0.Add(tc.sigtermS - 100*time.Millisecond))
				r := e.request(ip)
				require.Equal(t, AnswerOK, r.reply.Answer, "the preStop sleep runs: the application still serves")
				require.Equal(t, PodTerminating, r.reply.State)
				require.True(t, r.reply.Ready, "a terminating pod stays Ready while its container runs: only liveness and startup probing stop (doProbe's graceful shutdown)")
			}
			e.W.Run(t0.Add(tc.sigtermS + 100*time.Millisecond))
			r := e.request(ip)
			require.Equal(t, AnswerRefused, r.reply.Answer, "after SIGTERM the application stops accepting")
			require.Equal(t, RefusedShutdown, r.reply.Reason)

			e.runUntil(10*time.Second, "the container exited", func() bool { s, _ := e.rec.stops("default/web"); return len(s) == 1 })
			stops, stopAt := e.rec.stops("default/web")
			require.Equal(t, exitGraceful, stops[0].ExitCode)
			require.Equal(t, t0.Add(tc.sigtermS+2*time.Second), stopAt[0], "SIGTERM after the sleep, then the shutdown time")
			r = e.request(ip)
			require.False(t, r.reply.Ready, "not Ready once the container exited")
		})
	}
}

// TestServeAfterSigterm: an application that drains keeps answering for
// its serve-after-sigterm time after SIGTERM, then refuses and exits after
// its shutdown time.
func TestServeAfterSigterm(t *testing.T) {
	e := newEnv(t, 8, 1, Config{})
	e.create(newPod("web", map[string]string{AnnotationStartLatency: "1s", AnnotationServeAfterSigterm: "3s", AnnotationShutdown: "1s"}))
	ip := e.podIP("web")
	e.deletePod("web")
	_, at := e.rec.kills("default/web")
	require.Len(t, at, 1)
	t0 := at[0]

	e.W.Run(t0.Add(2900 * time.Millisecond))
	r := e.request(ip)
	require.Equal(t, AnswerOK, r.reply.Answer, "still draining")
	require.Equal(t, PodTerminating, r.reply.State)
	e.W.Run(t0.Add(3100 * time.Millisecond))
	r = e.request(ip)
	require.Equal(t, AnswerRefused, r.reply.Answer)
	require.Equal(t, RefusedShutdown, r.reply.Reason)
	e.runUntil(5*time.Second, "the container exited", func() bool { s, _ := e.rec.stops("default/web"); return len(s) == 1 })
	stops, stopAt := e.rec.stops("default/web")
	require.Equal(t, exitGraceful, stops[0].ExitCode)
	require.Equal(t, t0.Add(4*time.Second), stopAt[0], "serve 3 s, then shut down in 1 s")
}

// TestPreStopWithinGrace: a preStop sleep as long as the grace period
// leaves SIGTERM the kubelet's minimum of 2 s before SIGKILL.
func TestPreStopWithinGrace(t *testing.T) {
	e := newEnv(t, 9, 1, Config{})
	e.create(newPod("web", map[string]string{AnnotationStartLatency: "1s", AnnotationShutdown: "10s"}, withPreStop(5), withGrace(5)))
	e.podIP("web")
	e.deletePod("web")
	_, at := e.rec.kills("default/web")
	require.Len(t, at, 1)
	e.runUntil(15*time.Second, "the container exited", func() bool { s, _ := e.rec.stops("default/web"); return len(s) == 1 })
	stops, stopAt := e.rec.stops("default/web")
	require.Equal(t, exitSIGKILL, stops[0].ExitCode)
	require.Equal(t, at[0].Add(7*time.Second), stopAt[0], "5 s of sleep, then SIGTERM with the minimum 2 s")
}
