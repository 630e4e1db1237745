package checks

import (
	"fmt"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// ProbeRestartsOptions configure the probe-restarts check.
type ProbeRestartsOptions struct {
	// MeasureOnly never fails: for scenarios that misconfigure liveness on
	// purpose (a probe stricter than the application's worst latency) to
	// measure the restarts it causes.
	MeasureOnly bool
	// Exempt, when set, names pods ("namespace/name") whose restarts are
	// measured but never judged: a scenario's deliberately misconfigured
	// workload, beside a well-configured one that is judged.
	Exempt func(pod string) bool
}

// ProbeRestarts checks that a kubelet restarts a container only when it is
// really broken. In Kubernetes a failing readiness probe only takes the pod
// out of service (its Ready condition goes False); only a liveness probe
// failing FailureThreshold times in a row kills the container. It fails on
// every spoketrace.ContainerStop with
//   - reason Readiness: a readiness failure restarted a container;
//   - reason Liveness of a container the runtime says was healthy (working,
//     however slowly, and not answering its liveness endpoint with
//     failures): a liveness probe killed a busy container.
//
// It measures "probe_restarts", the containers killed by a probe (liveness
// or readiness), "healthy_restarts", those of them that were healthy, and
// "rotation_exits", how often a kubelet took a pod out of service (its
// readiness went from true to false).
type ProbeRestarts struct {
	opts      ProbeRestartsOptions
	rec       Recorder
	liveness  int
	readiness int
	healthy   int
	exits     int
	ready     map[string]bool // pod UID -> the kubelet's last readiness
}

// NewProbeRestarts returns the "probe-restarts" check.
func NewProbeRestarts(opts ...ProbeRestartsOptions) *ProbeRestarts {
	var o ProbeRestartsOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	return &ProbeRestarts{opts: o, ready: map[string]bool{}}
}

// Name implements Check.
func (c *ProbeRestarts) Name() string { return "probe-restarts" }

// Observe implements Check.
func (c *ProbeRestarts) Observe(e *sim.Event) {
	if r, ok := e.NodeData().(*spoketrace.PodReady); ok {
		if c.ready[r.UID] && !r.Ready {
			c.exits++
		}
		c.ready[r.UID] = r.Ready
		return
	}
	d, ok := e.NodeData().(*spoketrace.ContainerStop)
	if !ok {
		return
	}
	judged := c.opts.Exempt == nil || !c.opts.Exempt(d.Pod)
	switch d.Reason {
	case spoketrace.StopReadiness:
		c.readiness++
		c.addIf(judged, e, "kubelet on %s killed container %s of pod %s because its readiness probe failed (healthy=%v): readiness must never restart",
			d.Node, d.Container, d.Pod, d.Healthy)
	case spoketrace.StopLiveness:
		c.liveness++
		if d.Healthy {
			c.addIf(judged, e, "kubelet on %s killed container %s of pod %s on a failed liveness probe, but the container was healthy (busy, not hung)",
				d.Node, d.Container, d.Pod)
		}
	default:
		return
	}
	if d.Healthy {
		c.healthy++
	}
}

// addIf records an offense when the pod is judged.
func (c *ProbeRestarts) addIf(judged bool, e *sim.Event, format string, args ...any) {
	if judged {
		c.rec.Add(e, format, args...)
	}
}

// Finish implements Check.
func (c *ProbeRestarts) Finish() Result {
	detail := fmt.Sprintf("%d liveness kill(s), %d readiness kill(s), %d of healthy containers", c.liveness, c.readiness, c.healthy)
	if c.opts.MeasureOnly {
		return Result{Name: c.Name(), OK: true, Detail: "measured only: " + detail}
	}
	return c.rec.Result(c.Name(), detail+"; every probe restart was of an unhealthy container")
}

// Measures implements Measurer: probe_restarts and healthy_restarts.
func (c *ProbeRestarts) Measures() map[string]float64 {
	return map[string]float64{"probe_restarts": float64(c.liveness + c.readiness), "healthy_restarts": float64(c.healthy),
		"rotation_exits": float64(c.exits)}
}

var (
	_ Check    = (*ProbeRestarts)(nil)
	_ Measurer = (*ProbeRestarts)(nil)
)
