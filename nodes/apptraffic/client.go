package apptraffic

import (
	"errors"
	"time"

	"github.com/kubesim/kubesim/nodes/internal/defaults"
	"github.com/kubesim/kubesim/nodes/kubelet"
	"github.com/kubesim/kubesim/nodes/kubeproxy"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apptrace"
)

// Client defaults.
const (
	// DefaultTimeout is how long a client waits for an answer: 1 s, the
	// default timeoutSeconds of the kubelet's probes, so that a request
	// and a readiness probe give up on a busy application alike. Real HTTP
	// clients (Go's http.Client, curl) wait forever by default, which
	// would make a hung backend invisible.
	DefaultTimeout = time.Second
	// DefaultSlowAfter is the latency past which a successful answer
	// counts as slow: half the default timeout, a choice of kubesim's.
	DefaultSlowAfter = 500 * time.Millisecond
)

// Rules is what a client asks of its entry node: where the node's rules
// send traffic to a Service port. *kubeproxy.Proxy (a node's kube-proxy)
// and *kubeproxy.Table implement it.
type Rules interface {
	// Lookup returns the route of traffic to clusterIP:port over protocol.
	Lookup(clusterIP string, port int32, protocol string) (kubeproxy.Route, bool)
	// Routes returns every route of the node.
	Routes() []kubeproxy.Route
}

// Config configures one client. Zero fields take the defaults.
type Config struct {
	// Name names the client in the trace and its random streams; default
	// the host's name. Two clients of one world need two names.
	Name string
	// Service is the Service's "namespace/name" and PortName its port's
	// name: the client finds the port's cluster IP in the entry node's
	// rules, as a DNS lookup of the Service's name would.
	Service, PortName string
	// Entry is the node (its host's name) whose rules route the requests:
	// the client's own host for a client in the cluster, another node for
	// a client outside it, whose requests travel to that node first.
	Entry string
	// Rate is the requests per second, in a Poisson stream: the gaps are
	// drawn exponentially from the host's seeded stream.
	Rate float64
	// Start and Stop bound the world virtual time when it sends (Stop 0:
	// until the end).
	Start, Stop sim.Time
	// Timeout is how long a request waits for an answer (DefaultTimeout).
	Timeout time.Duration
	// SlowAfter is the latency past which a success is slow
	// (DefaultSlowAfter).
	SlowAfter time.Duration
	// RulesOf returns the rules of an entry node's host, nil when it has
	// none; default: its kube-proxy (kubeproxy.Of). A test may route
	// through a kubeproxy.Table of its own.
	RulesOf func(entry *sim.Host) Rules
}

func (c Config) withDefaults(h *sim.Host) Config {
	c.Name = defaults.HostName(c.Name, h)
	c.Entry = defaults.HostName(c.Entry, h)
	defaults.Positive(&c.Timeout, DefaultTimeout)
	defaults.Positive(&c.SlowAfter, DefaultSlowAfter)
	if c.RulesOf == nil {
		c.RulesOf = proxyRules
	}
	return c
}

// proxyRules is the default RulesOf: the host's kube-proxy.
func proxyRules(h *sim.Host) Rules {
	if p := kubeproxy.Of(h); p != nil {
		return p
	}
	return nil
}

// Boot returns the Boot of a host of clients, one per configuration: each
// sends requests as its Config says from the host's boot on (again after
// a restart; requests in flight when the host crashed are never traced,
// as nobody saw their end). Clients outside the cluster live on such a
// host; Beside puts clients on a node.
func Boot(cfgs ...Config) func(*sim.Host) {
	return Beside(nil, cfgs...)
}

// Beside returns a Boot that runs boot (when not nil) and then starts a
// client per configuration: clients in the cluster, on a node's host, as
// Beside(kubeproxy.Beside(kubelet.Boot(k), p), cfgs...).
func Beside(boot func(*sim.Host), cfgs ...Config) func(*sim.Host) {
	return func(h *sim.Host) {
		if boot != nil {
			boot(h)
		}
		for _, c := range cfgs {
			Start(h, c)
		}
	}
}

// Start starts a client on h now, from a Boot.
func Start(h *sim.Host, cfg Config) {
	c := cfg.withDefaults(h)
	cl := &client{h: h, cfg: c,
		arrivals: h.World().Rand("apptraffic/" + c.Name + "/arrivals"),
		picks:    h.World().Rand("apptraffic/" + c.Name + "/backends"),
		rpc:      sim.NewRPC(h, "apptraffic-reply:"+c.Name),
	}
	if e, ok := h.World().HostByName(c.Entry); ok {
		cl.entry = e
	}
	cl.tick = h.NewTimer("apptraffic-send", cl.send)
	cl.schedule()
}

// client is one client's run on a host incarnation.
type client struct {
	h               *sim.Host
	cfg             Config
	entry           *sim.Host // nil: an unknown node
	arrivals, picks *sim.Stream
	rpc             *sim.RPC
	tick            *sim.Timer
	// vip is the cluster IP, port and protocol last resolved: the DNS
	// answer, kept until the rules no longer match it.
	vip      kubeproxy.Route
	resolved bool
}

// schedule arms the next request: an exponential gap from now, or the
// start of the sending window.
func (c *client) schedule() {
	if c.cfg.Rate <= 0 {
		return
	}
	now := c.h.Now()
	gap := time.Duration(c.arrivals.ExpFloat64() / c.cfg.Rate * float64(time.Second))
	next := now.Add(gap)
	if next < c.cfg.Start {
		next = c.cfg.Start.Add(gap)
	}
	if c.cfg.Stop != 0 && next >= c.cfg.Stop {
		return
	}
	c.tick.Reset(next.Sub(now))
}

// send makes one request and arms the next.
func (c *client) send() {
	c.request()
	c.schedule()
}

// request routes one request by the entry node's rules and sends it.
func (c *client) request() {
	start := c.h.Now()
	ev := &apptrace.Request{Client: c.cfg.Name, Service: c.cfg.Service, PortName: c.cfg.PortName, Entry: c.cfg.Entry}
	end := func() {
		ev.Latency = int64(c.h.Now().Sub(start))
		c.h.Emit(ev)
	}
	if c.entry == nil {
		ev.Outcome, ev.Reason = apptrace.OutcomeRefused, apptrace.ReasonNoService
		end()
		return
	}
	var dest sim.HostID
	if c.entry.Up() {
		route, ok := c.route()
		switch {
		case !ok:
			ev.Outcome, ev.Reason = apptrace.OutcomeRefused, apptrace.ReasonNoService
			end()
			return
		case len(route.Backends) == 0:
			ev.Outcome, ev.Reason = apptrace.OutcomeRefused, apptrace.ReasonNoEndpoints
			end()
			return
		}
		// The statistic-mode random rules of iptables pick uniformly.
		b := route.Backends[c.picks.IntN(len(route.Backends))]
		ev.Pod, ev.Addr, ev.Routed = b.Pod, b.Addr(), b.State
		if c.entry == c.h {
			// In the cluster: the node's own routes send it to the pod's
			// node.
			var known bool
			if dest, known = kubelet.HostOfPodIP(c.h.World(), b.IP); !known {
				ev.Outcome, ev.Reason = apptrace.OutcomeRefused, kubelet.RefusedNoPod
				end()
				return
			}
		} else {
			dest = c.entry.ID()
		}
		c.call(dest, &kubelet.AppRequest{PodIP: b.IP, Port: b.Port, Timeout: c.cfg.Timeout}, ev, end)
		return
	}
	// The entry node is down: what is sent to it is lost.
	c.call(c.entry.ID(), &kubelet.AppRequest{Timeout: c.cfg.Timeout}, ev, end)
}

// call sends req to dest's AppPort and ends ev with its outcome.
func (c *client) call(dest sim.HostID, req *kubelet.AppRequest, ev *apptrace.Request, end func()) {
	start := c.h.Now()
	c.rpc.Call(dest, kubelet.AppPort, req, c.cfg.Timeout, func(resp any, err error) {
		reply, _ := resp.(*kubelet.AppReply)
		switch {
		case errors.Is(err, sim.ErrTimeout):
			ev.Outcome = apptrace.OutcomeTimeout
		case err != nil || reply == nil:
			ev.Outcome, ev.Reason = apptrace.OutcomeRefused, kubelet.RefusedReset
		default:
			ev.PodState, ev.Ready = reply.State, reply.Ready
			switch reply.Answer {
			case kubelet.AnswerOK:
				ev.Outcome = apptrace.OutcomeOK
				if c.h.Now().Sub(start) > c.cfg.SlowAfter {
					ev.Outcome = apptrace.OutcomeSlow
				}
			case kubelet.AnswerError:
				ev.Outcome = apptrace.OutcomeError
			default:
				ev.Outcome, ev.Reason = apptrace.OutcomeRefused, reply.Reason
			}
		}
		end()
	})
}

// route returns the entry node's route of the Service port: by the cluster
// IP resolved before while the rules still match it, else resolved anew
// by the Service's name among the node's routes.
func (c *client) route() (kubeproxy.Route, bool) {
	rules := c.cfg.RulesOf(c.entry)
	if rules == nil {
		return kubeproxy.Route{}, false
	}
	if c.resolved {
		r, ok := rules.Lookup(c.vip.ClusterIP, c.vip.Port, c.vip.Protocol)
		if ok && r.Service == c.cfg.Service && r.PortName == c.cfg.PortName {
			return r, true
		}
		c.resolved = false
	}
	for _, r := range rules.Routes() {
		if r.Service == c.cfg.Service && r.PortName == c.cfg.PortName {
			c.vip, c.resolved = kubeproxy.Route{ClusterIP: r.ClusterIP, Port: r.Port, Protocol: r.Protocol}, true
			return r, true
		}
	}
	return kubeproxy.Route{}, false
}
