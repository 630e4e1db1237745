package apiload

import (
	"cmp"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/internal/defaults"
	"github.com/kubesim/kubesim/sim"
)

// Defaults of RogueConfig.
const (
	DefaultRogueNode      = "node-x"
	DefaultRogueOtherNode = "node-y"
	DefaultRogueUser      = "mallory"
	DefaultRogueInterval  = 2 * time.Second
	// RogueVictimPod is the pod, bound to the other node, whose status the
	// rogue kubelet tries to write.
	RogueVictimPod = "rogue-victim"
)

// RogueConfig configures a misbehaving client.
type RogueConfig struct {
	// Name prefixes the clients' names ("<Name>-node", "<Name>-user",
	// "<Name>-admin"); empty means the host's name.
	Name string
	// Servers are the API server replicas.
	Servers []sim.HostID
	// Node is the kubelet identity it uses ("system:node:<Node>"), and
	// OtherNode the node whose objects it must not write; default "node-x"
	// and "node-y".
	Node, OtherNode string
	// User is an identity with no roles at all; default "mallory".
	User string
	// Namespace of the pods; default "default".
	Namespace string
	// Interval is the mean time between two attempts; default 2 s.
	Interval time.Duration
	// Timeout bounds each request; default the client's.
	Timeout time.Duration
	// Tracing traces the clients' calls (apitrace.Call and Return).
	Tracing bool
	// Until, when set, is the virtual time after which no attempt starts.
	Until time.Duration
}

func (cfg RogueConfig) withDefaults() RogueConfig {
	cfg.Node = cmp.Or(cfg.Node, DefaultRogueNode)
	cfg.OtherNode = cmp.Or(cfg.OtherNode, DefaultRogueOtherNode)
	cfg.User = cmp.Or(cfg.User, DefaultRogueUser)
	cfg.Namespace = cmp.Or(cfg.Namespace, DefaultNamespace)
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultRogueInterval
	}
	return cfg
}

// RogueStats counts a rogue client's attempts, for tests: Forbidden were
// refused with 403, Accepted succeeded (a hole in authorization), Other
// ended otherwise (an error, NotFound, AlreadyExists after an accepted
// create).
type RogueStats struct {
	Attempts, Forbidden, Accepted, Other int
}

// RogueExposeName is the name under which a rogue host exposes its
// *RogueStats.
const RogueExposeName = "apiload/rogue"

// rogue cycles through its forbidden writes.
type rogue struct {
	h     *sim.Host
	cfg   RogueConfig
	node  *client.Client // system:node:<Node>
	user  *client.Client // an identity without roles
	admin *client.Client // sets up the victim pod
	rng   *sim.Stream
	n     int
	stats RogueStats
}

// BootRogue returns the Boot function of a misbehaving client host. Every
// Interval (exponentially distributed) it tries, in turn:
//   - as system:node:<Node>, to create the Node <OtherNode> (a kubelet may
//     register only its own Node);
//   - as system:node:<Node>, to update the Node <OtherNode>, read first;
//   - as system:node:<Node>, to update the status of the pod RogueVictimPod,
//     which is bound to <OtherNode> (the node restriction); an admin client
//     creates that pod when it is missing;
//   - as <User>, an identity without roles, to create a pod.
//
// Each must be refused with 403 Forbidden.
func BootRogue(cfg RogueConfig) func(h *sim.Host) {
	cfg = cfg.withDefaults()
	return func(h *sim.Host) {
		name := defaults.HostName(cfg.Name, h)
		r := &rogue{h: h, cfg: cfg, rng: h.Rand("apiload/rogue")}
		mk := func(suffix, user string) *client.Client {
			return client.New(h, client.Config{Name: name + "-" + suffix, User: user, Servers: cfg.Servers, Timeout: cfg.Timeout, Tracing: cfg.Tracing})
		}
		r.node = mk("node", "system:node:"+cfg.Node)
		r.user = mk("user", cfg.User)
		r.admin = mk("admin", DefaultUser)
		h.Expose(RogueExposeName, &r.stats)
		r.next()
	}
}

func (r *rogue) next() {
	think(r.h, r.rng, r.cfg.Interval, r.cfg.Until, "apiload-rogue-think", r.attempt)
}

// done counts an attempt's outcome and schedules the next.
func (r *rogue) done(_ model.Object, err error) {
	r.stats.Attempts++
	switch {
	case err == nil:
		r.stats.Accepted++
	case client.IsForbidden(err):
		r.stats.Forbidden++
	default:
		r.stats.Other++
	}
	r.next()
}

// attempt makes the next forbidden write.
func (r *rogue) attempt() {
	r.n++
	value := r.h.Name() + "-" + itoa(r.n)
	switch r.n % 4 {
	case 1:
		node := r.otherNode()
		setValue(node, value)
		r.node.Nodes().Create(node, r.done)
	case 2:
		nodes := r.node.Nodes()
		nodes.Get(r.cfg.OtherNode, client.GetOptions{}, func(obj model.Object, err error) {
			if client.IsNotFound(err) {
				obj, err = r.otherNode(), nil
			}
			if err != nil {
				r.done(nil, err)
				return
			}
			setValue(obj, value)
			nodes.Update(obj, r.done)
		})
	case 3:
		pods := r.node.Pods(r.cfg.Namespace)
		pods.Get(RogueVictimPod, client.GetOptions{}, func(obj model.Object, err error) {
			if client.IsNotFound(err) {
				r.admin.Pods(r.cfg.Namespace).Create(r.victim(), func(model.Object, error) { r.next() })
				return
			}
			if err != nil {
				r.done(nil, err)
				return
			}
			pod := obj.(*model.Pod)
			pod.Status.Message = value
			pods.UpdateStatus(pod, r.done)
		})
	default:
		pod := r.pod("rogue-" + value)
		setValue(pod, value)
		r.user.Pods(r.cfg.Namespace).Create(pod, r.done)
	}
}

// otherNode is the Node the rogue kubelet must not write.
func (r *rogue) otherNode() *model.Node {
	return &model.Node{ObjectMeta: model.ObjectMeta{Name: r.cfg.OtherNode},
		Status: model.NodeStatus{Capacity: model.ResourceListOf("cpu", "4", "memory", "8Gi", "pods", "110")}}
}

// pod is a minimal valid pod.
func (r *rogue) pod(name string) *model.Pod {
	return &model.Pod{ObjectMeta: model.ObjectMeta{Name: name, Namespace: r.cfg.Namespace},
		Spec: model.PodSpec{Containers: []model.Container{{Name: "c", Image: "busybox:1"}}}}
}

// victim is RogueVictimPod, bound to the other node.
func (r *rogue) victim() *model.Pod {
	p := r.pod(RogueVictimPod)
	p.Spec.NodeName = r.cfg.OtherNode
	return p
}
